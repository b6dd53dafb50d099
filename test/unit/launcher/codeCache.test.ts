// The launchers' code cache (src/codeCache.ts): a bundle runs with its exports and requires
// whatever the cache holds; the cache is used once saved, and ignored when another user could have
// written it, when V8 rejects its bytes, or when it is turned off. With the real launcher
// (dist/cli.js, saving as its process exits): a folder above the cache that others may write, or
// a link in its place, and the cache is neither read nor written; a link another user plants
// where the cache is written is never written through.
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cacheFile, runFromCodeCache, type CodeCacheOptions } from '../../../src/codeCache';
import { projectRoot } from '../helpers/serveWorker';

let root: string;
let options: CodeCacheOptions;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-code-cache-'));
  const bundle = path.join(root, 'dist');
  fs.mkdirSync(bundle);
  fs.writeFileSync(path.join(bundle, 'helper.js'), 'module.exports = 41;\n');
  fs.writeFileSync(
    path.join(bundle, 'main.js'),
    "exports.answer = require('./helper') + 1;\nexports.where = [__filename, __dirname];\nexports.crypto = typeof require('node:crypto').createHash;\n",
  );
  options = { main: path.join(bundle, 'main.js'), name: 'test', saveAfterMs: 0, dir: path.join(root, 'cache'), root };
});
afterEach(() => {
  mock.timers.reset();
  delete process.env['HOOKBENCH_NO_CODE_CACHE'];
  fs.rmSync(root, { recursive: true, force: true });
});

/** The save a run schedules (`saveAfterMs` on, on the mocked clock) has run: it writes synchronously. */
const saved = () => mock.timers.tick(options.saveAfterMs + 1);

function expectRuns(run: ReturnType<typeof runFromCodeCache>): void {
  assert.deepEqual(run.exports, { answer: 42, where: [options.main, path.dirname(options.main)], crypto: 'function' });
}

describe('code cache', () => {
  // The save waits for a timer: the test moves the clock instead of waiting.
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));

  it('compiles and saves the first time, in a private folder, and uses the cache after', async () => {
    const first = runFromCodeCache(options);
    expectRuns(first);
    assert.equal(first.cache, 'compiled');
    saved();
    const file = cacheFile(options);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    const second = runFromCodeCache(options);
    expectRuns(second);
    assert.equal(second.cache, 'used');
  });

  it('ignores a cache that others may write', async () => {
    runFromCodeCache(options);
    saved();
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
    saved();
    assert.notEqual(fs.readFileSync(cacheFile(options), 'utf8'), 'not code');
    assert.equal(runFromCodeCache(options).cache, 'used');
  });

  it('is keyed by the bundle: a changed bundle compiles afresh', async () => {
    runFromCodeCache(options);
    saved();
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

/**
 * The real launcher, dist/cli.js, copied beside a small bundle of its own: run with `HOME` and
 * `XDG_CACHE_HOME` as given, it saves the compiled code as it exits. Run so, the bundle writes its
 * pid and waits (blocking, so no timer of the launcher's runs) for a line on stdin before it returns.
 */
function launcher(home: string) {
  const dist = path.join(home, 'app', 'dist');
  fs.mkdirSync(dist, { recursive: true });
  fs.copyFileSync(path.join(projectRoot(), 'dist', 'cli.js'), path.join(dist, 'cli.js'));
  const main = path.join(dist, 'cliMain.js');
  fs.writeFileSync(
    main,
    "const fs = require('node:fs');\nif (process.env.HOOKBENCH_TEST_WAIT) {\n  fs.writeSync(1, `${process.pid}\\n`);\n  fs.readSync(0, Buffer.alloc(1));\n}\n",
  );
  return {
    main,
    /** Starts it; `pid` once the bundle runs, `finish()` lets it return and resolves with its exit code. */
    async start(cacheHome: string): Promise<{ pid: number; finish(): Promise<number | null> }> {
      const child = spawn(process.execPath, [path.join(dist, 'cli.js')], {
        env: { ...process.env, HOME: home, XDG_CACHE_HOME: cacheHome, HOOKBENCH_NO_CODE_CACHE: '', HOOKBENCH_TEST_WAIT: '1' },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const pid = await new Promise<number>((resolve, reject) => {
        child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
        void exited.then((code) => reject(new Error(`the launcher exited with ${code} before its bundle ran`)));
      });
      return { pid, finish: () => (child.stdin!.end('\n'), exited) };
    },
  };
}

const listing = (dir: string) => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

describe('code cache: the folders above it', () => {
  it('writes nothing when a folder above the cache is writable by others, and reads nothing from there', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-cache-home-'));
    try {
      const app = launcher(home);
      const shared = path.join(home, 'shared');
      fs.mkdirSync(shared, { mode: 0o700 });
      // Private all the way down: the launcher saves, and the cache is used.
      await (await app.start(shared)).finish();
      const file = cacheFile({ main: app.main, name: 'cli', saveAfterMs: 0, dir: path.join(shared, 'hookbench', 'code-cache') });
      assert.ok(fs.existsSync(file), 'saved where every folder is private');
      const options = { main: app.main, name: 'cli', saveAfterMs: 60_000, dir: path.dirname(file), root: home };
      assert.equal(runFromCodeCache(options).cache, 'used');
      // The same cache under a folder anyone may write (or its group): not read.
      for (const mode of [0o777, 0o770]) {
        fs.chmodSync(shared, mode);
        assert.equal(runFromCodeCache(options).cache, 'compiled', `under a ${mode.toString(8)} folder`);
      }
      // Nor written: a fresh cache folder under it stays empty.
      fs.rmSync(path.join(shared, 'hookbench'), { recursive: true });
      assert.equal(await (await app.start(shared)).finish(), 0);
      assert.deepEqual(fs.readdirSync(shared), []);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("writes nothing through a cache folder that is a link, even to a private folder of the user's", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-cache-home-'));
    try {
      const app = launcher(home);
      const elsewhere = path.join(home, 'elsewhere');
      fs.mkdirSync(elsewhere, { mode: 0o700 });
      fs.mkdirSync(path.join(home, '.cache', 'hookbench'), { recursive: true, mode: 0o700 });
      fs.symlinkSync(elsewhere, path.join(home, '.cache', 'hookbench', 'code-cache'));
      assert.equal(await (await app.start(path.join(home, '.cache'))).finish(), 0);
      assert.deepEqual(fs.readdirSync(elsewhere), []);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('never writes through a link another user plants where the cache is written', async (t) => {
    if (process.getuid?.() !== 0 || spawnSync('runuser', ['--version']).status !== 0) return t.skip('needs root and runuser, to act as another user');
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-cache-home-'));
    try {
      fs.chmodSync(home, 0o755);
      const app = launcher(home);
      const victim = path.join(home, 'victim');
      fs.writeFileSync(victim, "the user's own file\n", { mode: 0o600 });
      // A cache home that others may write (a shared or misconfigured XDG_CACHE_HOME).
      const shared = path.join(home, 'shared');
      fs.mkdirSync(shared);
      fs.chmodSync(shared, 0o777);
      const run = await app.start(shared);
      const dir = path.join(shared, 'hookbench', 'code-cache');
      const file = cacheFile({ main: app.main, name: 'cli', saveAfterMs: 0, dir });
      // `nobody` makes the cache folder and plants links where this run would write: the file
      // (read) and its temporary file (written), named after the pid it can see in `ps`.
      const plant = spawnSync(
        'runuser',
        ['-u', 'nobody', '--', 'sh', '-c', `umask 000 && mkdir -p "${dir}" && ln -s "${victim}" "${file}.${run.pid}.tmp" && ln -s "${victim}" "${file}"`],
        { encoding: 'utf8' },
      );
      assert.equal(plant.status, 0, plant.stderr);
      const planted = listing(shared);
      assert.equal(await run.finish(), 0);
      assert.equal(fs.readFileSync(victim, 'utf8'), "the user's own file\n");
      assert.deepEqual(listing(shared), planted, 'nothing written beside the planted links');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
