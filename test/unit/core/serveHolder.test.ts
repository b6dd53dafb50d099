// Who holds a data folder, for VS Code opening it (src/core/serveHolder.ts): a live serve is
// attached to, never stopped, and what started it is named (a terminal, a task, another window);
// Take Over may stop only a holder proven stale (a VS Code serve whose window is gone); a lock
// naming a process that is no hookbench serve is stale with nothing to stop; a holder that proves
// nothing (starting, not answering) is neither attached to nor stopped. Real serves, real /proc.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isRunning, processIdentity, type ProcessLine } from '../../../src/core/childProcess';
import { formatServeLock, serveLockFile, type ServeLock } from '../../../src/core/contract/serveLock';
import type { LockVerdict } from '../../../src/core/lockHolder';
import { findHolding, findServeOf, holderOrigin, isHookbenchServe, judgeHolding, originText, serveDataFolder } from '../../../src/core/serveHolder';
import { orphanedVscodeServe, terminalServe } from '../helpers/serveProcess';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const lock: ServeLock = { pid: 4242, startTime: '100', uid: 1000, nonce: 'a'.repeat(64), admin: '127.0.0.1:8790' };
const holder: LockVerdict = { kind: 'holder', lock };
const line = (pid: number, ppid: number, ...argv: string[]): ProcessLine => ({ pid, ppid, argv });
const SERVE = ['/usr/bin/node', '/home/me/.npm/bin/hookbench', 'serve', '--worker', 'src/index.ts', '--port', '8790'];
const VSCODE_SERVE = ['/usr/bin/node', '/ext/dist/cli.js', 'serve', '--exit-with-parent', '--port', '8787'];
const SELF = 777;

describe('the stale-holder proof', () => {
  it('attaches to a live serve started in a terminal and names the shell', () => {
    const holding = judgeHolding(holder, [line(4242, 4000, ...SERVE), line(4000, 3000, '-bash'), line(3000, 1, 'sshd: me@pts/0')], SELF);
    assert.deepEqual(holding, { kind: 'live', lock, origin: { kind: 'terminal', shell: 'bash' } });
    assert.equal(originText(holding.kind === 'live' ? holding.origin : { kind: 'unknown' }), 'in a terminal (bash)');
  });

  it('names a task or script when a shell runs it with -c, through npm', () => {
    const chain = [
      line(4242, 4100, ...SERVE),
      line(4100, 4000, 'sh', '-c', 'hookbench serve --port 8790'),
      line(4000, 3900, 'npm', 'run', 'dev'),
      line(3900, 1, '/usr/lib/code/code', '--type=ptyHost'),
    ];
    assert.deepEqual(holderOrigin(chain), { kind: 'task', by: 'sh -c hookbench serve --port 8790' });
    assert.match(originText(holderOrigin(chain)), /^from a task or script \(sh -c hookbench serve/);
  });

  it('finds the terminal above npm and node (npx hookbench serve typed in zsh)', () => {
    const chain = [line(4242, 4100, ...SERVE), line(4100, 4000, 'node', '/usr/bin/npx', 'hookbench', 'serve'), line(4000, 1, '/bin/zsh')];
    assert.deepEqual(holderOrigin(chain), { kind: 'terminal', shell: 'zsh' });
  });

  it('attaches to a live serve of another VS Code window (its extension host is alive), never stopping it', () => {
    const holding = judgeHolding(
      holder,
      [line(4242, 5000, ...VSCODE_SERVE), line(5000, 4900, 'node', '/code-server/out/bootstrap-fork', '--type=extensionHost')],
      SELF,
    );
    assert.equal(holding.kind, 'live');
    assert.equal(holding.kind === 'live' && originText(holding.origin), 'from another VS Code window (or this tab before a reload)');
  });

  it("proves stale a VS Code serve whose window is gone: adopted by init, by a session reaper, or this very extension host's leftover", () => {
    for (const chain of [
      [line(4242, 1, ...VSCODE_SERVE)],
      [line(4242, 900, ...VSCODE_SERVE), line(900, 1, '/lib/systemd/systemd', '--user')],
      [line(4242, SELF, ...VSCODE_SERVE)],
    ]) {
      const holding = judgeHolding(holder, chain, SELF);
      assert.equal(holding.kind, 'stale', JSON.stringify(chain));
      assert.deepEqual(holding.kind === 'stale' && holding.stops, lock, 'Take Over stops exactly the holder the lock names');
    }
  });

  it('looks past the relay a serve started without its allocator settings runs on Node 20 (src/serveAllocator.ts)', () => {
    // The lock names the child serve; its parent is the relay, started by what started serve.
    const orphan = judgeHolding(holder, [line(4242, 4241, ...VSCODE_SERVE), line(4241, 1, ...VSCODE_SERVE)], SELF);
    assert.equal(orphan.kind, 'stale');
    const typed = judgeHolding(holder, [line(4242, 4241, ...SERVE), line(4241, 4000, ...SERVE), line(4000, 3000, 'bash')], SELF);
    assert.deepEqual(typed.kind === 'live' && typed.origin, { kind: 'terminal', shell: 'bash' });
  });

  it('never proves stale a terminal serve, even adopted by init (its shell closed with nohup)', () => {
    assert.equal(judgeHolding(holder, [line(4242, 1, ...SERVE)], SELF).kind, 'live');
  });

  it('calls a lock naming a live process that is no hookbench serve stale, with nothing to stop', () => {
    const holding = judgeHolding({ kind: 'unconfirmed', lock, reason: 'did not answer' }, [line(4242, 1, 'python3', '-m', 'http.server')], SELF);
    assert.deepEqual(holding, { kind: 'stale', reason: 'pid 4242 is python3, not a hookbench serve', pid: 4242 });
  });

  it('neither attaches to nor stops a serve that did not prove it holds the folder (starting, or not answering)', () => {
    const verdict: LockVerdict = { kind: 'unconfirmed', lock, reason: 'it is not listening yet' };
    assert.deepEqual(judgeHolding(verdict, [line(4242, 4000, ...SERVE)], SELF), { kind: 'unproven', lock, reason: 'it is not listening yet' });
    // Without /proc there is no chain: the proof alone decides, and it proved nothing.
    assert.equal(judgeHolding(verdict, [], SELF).kind, 'unproven');
  });

  it("passes on the lock's own stale verdicts, with nothing to stop", () => {
    assert.deepEqual(judgeHolding({ kind: 'stale', pid: 9, reason: 'no process has that pid' }, [], SELF), {
      kind: 'stale',
      reason: 'no process has that pid',
      pid: 9,
    });
    assert.equal(judgeHolding({ kind: 'own', lock }, [], SELF).kind, 'stale');
    assert.deepEqual(judgeHolding({ kind: 'free' }, [], SELF), { kind: 'free' });
  });

  it("reads the data folder a serve's arguments name, in its working folder", () => {
    assert.equal(serveDataFolder(SERVE, '/home/me/app'), '/home/me/app/.hookbench');
    assert.equal(serveDataFolder([...SERVE, '--data', 'state'], '/home/me/app'), '/home/me/app/state');
    assert.equal(serveDataFolder([...SERVE, '--data=/srv/hb'], '/home/me/app'), '/srv/hb');
    assert.equal(serveDataFolder(['python3', '-m', 'http.server'], '/home/me/app'), undefined);
  });

  it('knows hookbench serve by its script and verb, not by a word anywhere', () => {
    assert.ok(isHookbenchServe(SERVE));
    assert.ok(isHookbenchServe(VSCODE_SERVE));
    assert.ok(!isHookbenchServe(['python3', '-m', 'http.server', 'serve']));
    assert.ok(!isHookbenchServe(['node', 'serve']));
  });
});

/** The data folder a serve of these tests uses, removed after. */
function dataFolder(): string {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-holder-'));
  cleanups.push(() => fs.rmSync(data, { recursive: true, force: true }));
  return data;
}

describe('who holds a real data folder', () => {
  it('finds a serve typed into a terminal live, names the terminal, and leaves it running', async () => {
    const data = dataFolder();
    const serve = await terminalServe(data);
    cleanups.push(() => serve.kill());
    const holding = await findHolding(data);
    assert.equal(holding.kind, 'live');
    assert.deepEqual(holding.kind === 'live' && holding.origin, { kind: 'terminal', shell: 'bash' });
    assert.ok(isRunning(serve.lock.pid), 'looking stopped nothing');
    process.kill(serve.lock.pid, 'SIGINT');
    for (let waited = 0; isRunning(serve.lock.pid) && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await findHolding(data)).kind, 'free', 'a serve stopped with Ctrl+C leaves the folder free');
  });

  it('finds the serve listening where the workspace points, with the data folder it holds', async () => {
    const data = dataFolder();
    const serve = await terminalServe(data);
    cleanups.push(() => serve.kill());
    const found = await findServeOf(serve.lock.pid);
    assert.equal(found?.dataDir, data);
    assert.deepEqual(found?.holding.origin, { kind: 'terminal', shell: 'bash' });
    assert.equal(await findServeOf(process.pid), undefined, 'a process that is no serve');
  });

  it('proves stale a VS Code serve whose window went away, naming it for Take Over', async () => {
    const data = dataFolder();
    const serve = await orphanedVscodeServe(data);
    cleanups.push(() => serve.kill());
    const holding = await findHolding(data);
    assert.equal(holding.kind, 'stale', JSON.stringify(holding));
    assert.equal(holding.kind === 'stale' && holding.stops?.pid, serve.lock.pid);
    assert.ok(isRunning(serve.lock.pid), 'looking stopped nothing');
  });

  it('calls stale a planted lock naming a live process that is no serve, and leaves that process alone', async () => {
    const data = dataFolder();
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    cleanups.push(() => other.kill('SIGKILL'));
    const identity = processIdentity(other.pid!) as { startTime: string };
    fs.mkdirSync(path.dirname(serveLockFile(data)), { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      serveLockFile(data),
      formatServeLock({ pid: other.pid!, startTime: identity.startTime, uid: process.getuid!(), nonce: randomBytes(32).toString('hex'), admin: '127.0.0.1:9' }),
      { mode: 0o600 },
    );
    const holding = await findHolding(data, { timeoutMs: 1000 });
    assert.equal(holding.kind, 'stale', JSON.stringify(holding));
    assert.equal(holding.kind === 'stale' && holding.stops, undefined, 'nothing to stop');
    assert.ok(isRunning(other.pid!));
  });
});
