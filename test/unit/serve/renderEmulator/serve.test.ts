// The emulator inside `hookbench serve`: its line, its token, and a busy port costing only the emulator.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { RenderClient } from '../../../../src/core/browserRendering/client';
import { startServe } from '../../helpers/serveProcess';

const data = () => fs.mkdtempSync(path.join(os.tmpdir(), 'hb-serve-render-'));

describe('hookbench serve with the render emulator', () => {
  it('prints "render on …/client/v4" before "listening on", and renders with HOOKBENCH_RENDER_TOKEN', async () => {
    const serve = await startServe(['--data', data()], { HOOKBENCH_RENDER_TOKEN: 'serve-render-token' });
    try {
      const match = /^render on (http:\/\/127\.0\.0\.1:\d+\/client\/v4)\nlistening on /m.exec(serve.stdout());
      assert.ok(match, serve.stdout());
      assert.doesNotMatch(serve.stdout(), /render token/);
      const client = new RenderClient({ baseUrl: match[1]!, accountId: 'acct', token: 'serve-render-token' });
      const answer = await client.render('markdown', { html: '<h1>From serve</h1>' });
      assert.equal(answer.kind === 'json' && answer.result, '# From serve');
    } finally {
      assert.equal(await serve.stop(), 0);
    }
  });

  it('makes up and prints a token when none is set', async () => {
    const serve = await startServe(['--data', data()], { HOOKBENCH_RENDER_TOKEN: '' });
    try {
      assert.match(serve.stdout(), /^render token [\w-]{32} \(set HOOKBENCH_RENDER_TOKEN to choose it\)$/m);
    } finally {
      await serve.stop();
    }
  });

  it('keeps the receiver running when the render port is taken, and says so', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const serve = await startServe(['--data', data(), '--render-port', String(port)]);
    try {
      assert.doesNotMatch(serve.stdout(), /render on/);
      assert.match(serve.stderr(), new RegExp(`did not start on port ${port}: .*EADDRINUSE`));
      assert.equal((await fetch(`${serve.url}/nowhere`)).status, 404);
    } finally {
      await serve.stop();
      blocker.close();
    }
  });

  it('does not start it with --no-render', async () => {
    const serve = await startServe(['--data', data(), '--no-render']);
    await serve.stop();
    assert.doesNotMatch(serve.stdout(), /render/);
  });
});
