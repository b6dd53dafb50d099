// The admin token file (src/core/contract/adminTokenFile.ts): the token with the admin protocol of
// the serve that wrote it, read back as written; a file of an earlier serve (the token alone) gives
// its token and no protocol; anything else gives nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PROTOCOL_VERSION } from '../../../../src/core/contract/adminProtocol';
import { formatAdminToken, parseAdminToken, parseAdminTokenFile } from '../../../../src/core/contract/adminTokenFile';

describe('the admin token file', () => {
  it('reads back the token and the protocol it formats', () => {
    const text = formatAdminToken({ token: 'f00d'.repeat(12), protocol: ADMIN_PROTOCOL_VERSION });
    assert.deepEqual(parseAdminTokenFile(text), { token: 'f00d'.repeat(12), protocol: ADMIN_PROTOCOL_VERSION });
    assert.equal(parseAdminToken(text), 'f00d'.repeat(12));
    assert.ok(text.endsWith('\n') && !text.slice(0, -1).includes('\n'), 'one line');
  });

  it("reads an earlier serve's file, the token alone, as stating no protocol", () => {
    assert.deepEqual(parseAdminTokenFile('given-token-0123456789\n'), { token: 'given-token-0123456789', protocol: undefined });
  });

  it('gives nothing for an empty, half-written or foreign file', () => {
    const full = formatAdminToken({ token: 'abc', protocol: 1 });
    for (const text of [
      '',
      '\n',
      full.slice(0, 20),
      '{"format": "other", "token": "abc", "protocol": 1}',
      '{"format": "hookbench admin-token 2", "token": "a b", "protocol": 1}',
      'two words',
    ]) {
      assert.equal(parseAdminTokenFile(text), undefined, text);
    }
  });
});
