import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AssetServer } from '../../../../src/runtime/worker/assets';

function site(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-assets-'));
  fs.mkdirSync(path.join(dir, 'docs'));
  fs.writeFileSync(path.join(dir, 'docs', 'guide.html'), '<h1>guide</h1>');
  return dir;
}

const server = (directory: string) => new AssetServer({ directory, htmlHandling: 'auto-trailing-slash', notFoundHandling: 'none', runWorkerFirst: false });

describe('assets: ETags and env.ASSETS.fetch as wrangler dev has them', () => {
  it('names a file by the first 16 bytes of SHA-256 over its absolute path and mtime, as Miniflare does in dev', () => {
    const dir = site();
    const file = path.join(dir, 'docs', 'guide.html');
    const expected = createHash('sha256')
      .update(file + fs.statSync(file).mtimeMs.toString())
      .digest('hex')
      .slice(0, 32);
    const response = server(dir).fetch(new Request('http://x/docs/guide'));
    assert.equal(response.headers.get('etag'), `"${expected}"`);
    fs.utimesSync(file, new Date(2020, 0, 1), new Date(2020, 0, 1));
    assert.notEqual(server(dir).fetch(new Request('http://x/docs/guide')).headers.get('etag'), `"${expected}"`, 'an edit (a new mtime) changes it');
  });

  it('follows the html_handling redirect through the binding, unless the request says manual', async () => {
    const assets = server(site());
    const followed = assets.bindingFetch('http://x/docs/guide.html');
    assert.equal(followed.status, 200);
    assert.equal(await followed.text(), '<h1>guide</h1>');
    assert.equal(followed.redirected, true);
    assert.equal(followed.url, 'http://x/docs/guide');
    const manual = assets.bindingFetch(new Request('http://x/docs/guide.html', { redirect: 'manual' }));
    assert.equal(manual.status, 307);
    assert.equal(manual.headers.get('location'), '/docs/guide');
    assert.equal(assets.bindingFetch('http://x/nope').url, 'http://x/nope');
    assert.throws(() => assets.bindingFetch('/docs/guide.html'), /^TypeError: Invalid URL: \/docs\/guide\.html$/);
  });
});
