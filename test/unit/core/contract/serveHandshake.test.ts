// serve's start and failure lines: what the CLI writes, the extension and the tests read back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  folderInUse,
  folderInUseMessage,
  listeningLine,
  listeningUrl,
  loginFile,
  loginFileLine,
  portInUse,
  portInUseMessage,
  protocolLine,
  protocolVersion,
  renderLine,
  renderToken,
  renderTokenLine,
  renderUrl,
} from '../../../../src/core/contract/serveHandshake';

describe("serve's handshake lines", () => {
  it('reads each start line back from what it formats', () => {
    assert.equal(listeningUrl(listeningLine('http://127.0.0.1:8787')), 'http://127.0.0.1:8787');
    assert.equal(renderUrl(renderLine('http://127.0.0.1:8788/client/v4')), 'http://127.0.0.1:8788/client/v4');
    assert.equal(renderToken(renderTokenLine('Zx3_abc-DEF')), 'Zx3_abc-DEF');
    assert.equal(loginFile(loginFileLine('/work/my app/.hookbench/_hookbench/login')), '/work/my app/.hookbench/_hookbench/login');
  });

  it('takes no line for another', () => {
    const lines = [
      listeningLine('http://127.0.0.1:1'),
      renderLine('http://127.0.0.1:2/client/v4'),
      renderTokenLine('t'),
      loginFileLine('/f'),
      '[receiver] listening on http://127.0.0.1:3',
    ];
    assert.deepEqual(lines.map(listeningUrl), ['http://127.0.0.1:1', undefined, undefined, undefined, undefined]);
    assert.deepEqual(lines.map(renderUrl), [undefined, 'http://127.0.0.1:2/client/v4', undefined, undefined, undefined]);
  });

  it("states the admin protocol on a line of its own, which the listening line's reader passes over", () => {
    assert.equal(protocolVersion(protocolLine(1)), 1);
    assert.equal(protocolVersion(protocolLine(12)), 12);
    assert.deepEqual(['admin protocol x', 'admin protocol 0', 'admin protocol 1 ', listeningLine('http://127.0.0.1:1')].map(protocolVersion), [
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    assert.equal(listeningUrl(protocolLine(1)), undefined);
  });

  it('reads the failures from the tail of standard error, as the extension gets it', () => {
    const port = `the server exited with code 1: hookbench: ${portInUseMessage('127.0.0.1', '8787')}`;
    const folder = `the server exited with code 1: hookbench: ${folderInUseMessage('/work/app/.hookbench', 4242, '/work/app/.hookbench/_hookbench/serve.lock')}`;
    assert.deepEqual(portInUse(port), { host: '127.0.0.1', port: 8787 });
    assert.deepEqual(folderInUse(folder), { folder: '/work/app/.hookbench', pid: 4242 });
    assert.equal(portInUse(folder), undefined);
    assert.equal(folderInUse(port), undefined);
  });
});
