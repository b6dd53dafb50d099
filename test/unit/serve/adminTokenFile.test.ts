// A second client of the same user reaches a terminal's `hookbench serve` the way VS Code attaches
// to it: through the admin token the serve keeps in its data folder (made up when none is given),
// owner-only, removed when it stops. The token, not the file's presence, is what opens the routes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ADMIN_API } from '../../../src/core/contract/admin';
import { routePath } from '../../../src/core/contract/adminRoute';
import { adminTokenFile, parseAdminToken } from '../../../src/core/contract/adminTokenFile';
import { startServe } from '../helpers/serveProcess';

const instances = (url: string, token?: string) =>
  fetch(`${url}${routePath(ADMIN_API.instances, {})}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe('the admin token file', () => {
  it('holds a made-up token when none is given, owner-only, which opens the admin API; gone once serve stops', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-token-'));
    const serve = await startServe(['--data', data, '--no-render'], { HOOKBENCH_ADMIN_TOKEN: '' });
    try {
      const file = adminTokenFile(data);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
      const token = parseAdminToken(fs.readFileSync(file, 'utf8'));
      assert.match(token ?? '', /^[0-9a-f]{48}$/);
      assert.equal((await instances(serve.url, token)).status, 200);
      assert.equal((await instances(serve.url)).status, 401);
      assert.equal((await instances(serve.url, 'f'.repeat(48))).status, 401);
      assert.ok(!serve.stdout().includes(token!) && !serve.stderr().includes(token!), 'never printed');
    } finally {
      assert.equal(await serve.stop(), 0);
      fs.rmSync(data, { recursive: true, force: true });
    }
  });

  it('holds the given token, and is removed when serve stops', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-token-'));
    const serve = await startServe(['--data', data, '--no-render'], { HOOKBENCH_ADMIN_TOKEN: 'given-token-0123456789' });
    try {
      assert.equal(parseAdminToken(fs.readFileSync(adminTokenFile(data), 'utf8')), 'given-token-0123456789');
    } finally {
      assert.equal(await serve.stop(), 0);
    }
    assert.ok(!fs.existsSync(adminTokenFile(data)));
    fs.rmSync(data, { recursive: true, force: true });
  });
});
