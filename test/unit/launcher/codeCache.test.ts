// The launchers' code cache (src/codeCache.ts): a bundle runs with its exports and requires
// whatever the cache holds; the cache is used once saved, and ignored when another user could have
// written it, when V8 rejects its bytes, or when it is turned off.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cacheFile, runFromCodeCache, type CodeCacheOptions } from '../../../src/codeCache';

let root: string;
let options: CodeCacheOptions;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-code-cache-'));
  const bundle = path.join(root, 'dist');
  fs.mkdirSync(bundle);
  fs.writeFileSync(path.join(bundle, 'helper.js'), 'module.exports = 41;\n');
  fs.writeFileSync(path.join(bundle, 'main.js'), "exports.answer = require('./helper') + 1;\nexports.where = [__filename, __dirname];\nexports.crypto = typeof require('node:crypto').createHash;\n");
  options = { main: path.join(bundle, 'main.js'), name: 'test', saveAfterMs: 0, dir: path.join(root, 'cache') };
});
afterEach(() => {
  delete process.env['HOOKBENCH_NO_CODE_CACHE'];
  fs.rmSync(root, { recursive: true, force: true });
});

const saved = () => new Promise((resolve) => setTimeout(resolve, 50));

function expectRuns(run: ReturnType<typeof runFromCodeCache>): void {
  assert.deepEqual(run.exports, { answer: 42, where: [options.main, path.dirname(options.main)], crypto: 'function' });
}

describe('code cache', () => {
  it('compiles and saves the first time, in a private folder, and uses the cache after', async () => {
    const first = runFromCodeCache(options);
    expectRuns(first);
    assert.equal(first.cache, 'compiled');
    await saved();
    const file = cacheFile(options);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    const second = runFromCodeCache(options);
    expectRuns(second);
    assert.equal(second.cache, 'used');
  });

  it('ignores a cache that others may write', async () => {
    runFromCodeCache(options);
    await saved();
    fs.chmodSync(cacheFile(options), 0o666);
    const run = runFromCodeCache(options);
    expectRuns(run);
    assert.equal(run.cache, 'compiled');
  });

  it('ignores bytes V8 rejects, and replaces them', async () => {
    fs.mkdirSync(options.dir!, { mode: 0o700 });
    fs.writeFileSync(cacheFile(options), 'not code', { mode: 0o600 });
    const run = runFromCodeCache(options);
    expectRuns(run);
    assert.equal(run.cache, 'compiled');
    await saved();
    assert.notEqual(fs.readFileSync(cacheFile(options), 'utf8'), 'not code');
    assert.equal(runFromCodeCache(options).cache, 'used');
  });

  it('is keyed by the bundle: a changed bundle compiles afresh', async () => {
    runFromCodeCache(options);
    await saved();
    const before = cacheFile(options);
    fs.appendFileSync(options.main, 'exports.more = true;\n');
    assert.notEqual(cacheFile(options), before);
    const run = runFromCodeCache(options);
    assert.equal(run.cache, 'compiled');
    assert.equal((run.exports as { more?: boolean }).more, true);
  });

  it('runs the bundle plainly when turned off', () => {
    process.env['HOOKBENCH_NO_CODE_CACHE'] = '1';
    const run = runFromCodeCache(options);
    expectRuns(run);
    assert.equal(run.cache, 'off');
    assert.equal(fs.existsSync(options.dir!), false);
  });
});
