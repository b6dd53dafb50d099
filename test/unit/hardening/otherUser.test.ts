// Another user of the machine (here `nobody`, through runuser) against a real `hookbench serve`:
// the data folder it wrote (journals, snapshots, names, the deliveries log with real payloads and
// signature headers) is private to its owner, and the render emulator's Chromium offers no
// DevTools endpoint (no --remote-debugging-port, no listening TCP socket) to connect to.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromiumProcesses, commandLine, listeningSockets } from '../helpers/procfs';
import { startServe } from '../helpers/serveProcess';
import { githubPush, SECRETS } from '../workers/payloads';

const ADMIN_TOKEN = 'admin-token-other-user';
const RENDER_TOKEN = 'render-token-other-user';

function skipReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root, to run commands as another user with runuser';
  try {
    execFileSync('runuser', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'runuser is not installed';
  }
  return undefined;
}

/** Runs a command as `nobody`; its exit status and error output. */
function asNobody(...command: string[]): { status: number | null; stderr: string } {
  const result = spawnSync('runuser', ['-u', 'nobody', '--', ...command], { encoding: 'utf8', timeout: 10_000 });
  return { status: result.status, stderr: result.stderr };
}

/** Resolves once `check` holds, re-checking as the file system changes; fails after 5 s. */
function until(check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (check()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > 5000) {
        clearInterval(timer);
        reject(new Error(`never: ${what}`));
      }
    }, 20);
  });
}

/** Every entry under `dir`, `dir` included, with its lstat. */
function entriesUnder(dir: string): { file: string; stat: fs.Stats }[] {
  const files = [dir, ...fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f))];
  return files.map((file) => ({ file, stat: fs.lstatSync(file) }));
}

describe('another user of the machine', () => {
  it('can neither list the data folder nor read the deliveries log; every folder is 0700 and every file 0600', async (t) => {
    const skip = skipReason();
    if (skip) return t.skip(skip);
    // A world-traversable parent, so only the data folder's own modes stand in the way.
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-other-user-'));
    fs.chmodSync(parent, 0o755);
    const data = path.join(parent, 'data');
    // A folder as an earlier version (or the umask) left it: serve makes it private.
    fs.mkdirSync(data);
    fs.chmodSync(data, 0o755);
    const serve = await startServe(['--data', data, '--no-watch'], {
      GITHUB_WEBHOOK_SECRET: SECRETS.GITHUB_WEBHOOK_SECRET,
      HOOKBENCH_ADMIN_TOKEN: ADMIN_TOKEN,
      HOOKBENCH_RENDER_TOKEN: RENDER_TOKEN,
    });
    try {
      const push = githubPush('Acme/Private', 'private-1');
      const response = await fetch(`${serve.url}/webhooks/github/acme`, { method: 'POST', body: push.body, headers: push.headers });
      assert.equal(response.status, 200);
      const folder = path.join(data, '_hookbench', 'deliveries');
      const deliveries = path.join(
        folder,
        fs.readdirSync(folder).find((f) => /^deliveries-\d+\.ndjson$/.test(f))!,
      );
      // The log is appended after the answer: wait (boundedly) for the line to land.
      await until(() => fs.readFileSync(deliveries, 'utf8').includes('private-1'), 'the delivery, with its headers, is on disk');

      // nobody reaches the parent, so what stops it is the data folder's mode.
      assert.equal(asNobody('ls', parent).status, 0);
      const listed = asNobody('ls', data);
      assert.notEqual(listed.status, 0);
      assert.match(listed.stderr, /Permission denied/);
      const read = asNobody('cat', deliveries);
      assert.notEqual(read.status, 0);
      assert.match(read.stderr, /Permission denied/);
    } finally {
      assert.equal(await serve.stop(), 0);
    }

    // Stopped: every instance committed and snapshotted, so every kind of file is there.
    const entries = entriesUnder(data);
    const names = entries.map((e) => path.relative(data, e.file));
    for (const wanted of [
      /^_hookbench\/deliveries\/deliveries-\d+\.ndjson$/,
      /^nwebhook-agent\/nacme\/journal-\d+\.log$/,
      /^nwebhook-agent\/nacme\/name$/,
      /^nwebhook-agent\/nacme\/db\.snapshot$/,
      /^_hookbench\/sink\/db\.snapshot$/,
    ]) {
      assert.ok(
        names.some((name) => wanted.test(name)),
        `${wanted} in ${names.join(', ')}`,
      );
    }
    for (const { file, stat } of entries) {
      assert.ok(stat.isDirectory() || stat.isFile(), file);
      assert.equal((stat.mode & 0o777).toString(8), stat.isDirectory() ? '700' : '600', file);
    }
  });

  it('finds no DevTools endpoint: the render emulator’s Chromium has no debugging port and listens on no TCP socket', async (t) => {
    const skip = skipReason();
    if (skip) return t.skip(skip);
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-other-user-render-'));
    const serve = await startServe(['--data', data, '--no-watch'], { HOOKBENCH_ADMIN_TOKEN: ADMIN_TOKEN, HOOKBENCH_RENDER_TOKEN: RENDER_TOKEN });
    try {
      const base = /^render on (http:\/\/\S+\/client\/v4)$/m.exec(serve.stdout())?.[1];
      assert.ok(base, serve.stdout());
      const response = await fetch(`${base}/accounts/acct/browser-rendering/content`, {
        method: 'POST',
        headers: { authorization: `Bearer ${RENDER_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html: '<p>a tiny page</p>' }),
      });
      assert.equal(response.status, 200, await response.clone().text());

      // Chromium runs now, below serve (its helpers below it); another engineer's browsers are not ours to judge.
      const browsers = chromiumProcesses(serve.child.pid!);
      assert.ok(browsers.length > 0, 'the render started Chromium below serve');
      const main = browsers.find((pid) => commandLine(pid).includes('--remote-debugging-pipe'));
      assert.ok(main, 'DevTools over a pipe');
      assert.ok(listeningSockets(main) !== undefined, 'the browser’s sockets can be read');
      // The scan sees a listening socket where there is one: serve's own receiver and emulator.
      assert.ok((listeningSockets(serve.child.pid!) ?? []).length >= 2, 'serve is seen listening');
      for (const pid of browsers) {
        const args = commandLine(pid);
        assert.ok(!args.some((arg) => arg.startsWith('--remote-debugging-port') || arg.startsWith('--remote-debugging-address')), `${pid}: ${args.join(' ')}`);
        assert.deepEqual(listeningSockets(pid) ?? [], [], `${pid} listens: ${args.join(' ')}`);
      }
    } finally {
      assert.equal(await serve.stop(), 0);
    }
  });
});
