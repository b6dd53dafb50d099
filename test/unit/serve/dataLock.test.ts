// One serve process per data folder: a second one on the same folder (VS Code's receiver and a
// terminal's `hookbench serve` both default to the workspace's .hookbench) refuses to start and
// says who holds it; a lock left by a process that is gone, or naming a live process that is not
// its holder, is taken over; a clean stop leaves none. The lock names its holder so that nothing
// else passes for it (pid, start time, uid, nonce, admin address) and is private to its owner.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { processIdentity } from '../../../src/core/childProcess';
import { formatServeLock, lockAnswer, parseServeLock, serveLockFile, type ServeLock } from '../../../src/core/contract/serveLock';
import { startServe } from '../helpers/serveProcess';

const lockFile = serveLockFile;
const holderOf = (data: string): ServeLock | undefined => parseServeLock(fs.readFileSync(lockFile(data), 'utf8'));

/** An unrelated long-running process; `stop` ends it. */
function unrelated(): { pid: number; stop(): void } {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  return { pid: child.pid!, stop: () => child.kill('SIGKILL') };
}

describe('data folder lock', () => {
  it('refuses a second serve on the same folder, naming the first, and the first keeps serving', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-'));
    const first = await startServe(['--data', data, '--no-render']);
    try {
      assert.equal(holderOf(data)?.pid, first.child.pid);
      await assert.rejects(startServe(['--data', data, '--no-render']), (error: Error) => {
        assert.match(error.message, /exited with 1/);
        assert.match(error.message, new RegExp(`in use by another hookbench serve \\(pid ${first.child.pid}\\)`));
        assert.match(error.message, /--data/);
        return true;
      });
      assert.equal((await fetch(`${first.url}/webhooks/github`, { method: 'GET' })).status, 405);
    } finally {
      assert.equal(await first.stop(), 0);
    }
    assert.equal(fs.existsSync(lockFile(data)), false, 'a clean stop removes the lock');
  });

  it('takes over a lock whose process is gone', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-stale-'));
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.mkdirSync(path.dirname(lockFile(data)), { recursive: true });
    fs.writeFileSync(
      lockFile(data),
      formatServeLock({ pid: Number(gone.stdout), startTime: '1', uid: process.getuid!(), nonce: randomBytes(32).toString('hex'), admin: '127.0.0.1:9' }),
    );
    const served = await startServe(['--data', data, '--no-render']);
    try {
      assert.equal(holderOf(data)?.pid, served.child.pid);
    } finally {
      await served.stop();
    }
  });

  it('takes over the lock of a serve that was SIGKILLed', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-kill-'));
    const first = await startServe(['--data', data, '--no-render']);
    await first.stop('SIGKILL');
    assert.equal(holderOf(data)?.pid, first.child.pid, 'a killed process leaves its lock behind');
    const second = await startServe(['--data', data, '--no-render']);
    try {
      assert.equal(holderOf(data)?.pid, second.child.pid);
    } finally {
      await second.stop();
    }
  });

  it('names its holder in a private lock: pid, start time, uid, a nonce, and the admin address once listening', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-format-'));
    const served = await startServe(['--data', data, '--no-render']);
    try {
      const lock = holderOf(data)!;
      const identity = processIdentity(served.child.pid!) as { startTime: string; uid: number };
      assert.deepEqual(
        { ...lock, nonce: lock.nonce.length },
        { pid: served.child.pid, startTime: identity.startTime, uid: process.getuid!(), nonce: 64, admin: new URL(served.url).host },
      );
      assert.equal(fs.statSync(lockFile(data)).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(lockFile(data))).mode & 0o777, 0o700);
      // The proof: HMAC(nonce, challenge), without the admin token; the nonce itself is never sent.
      const challenge = randomBytes(32).toString('hex');
      const response = await fetch(`${served.url}/__hookbench/lock/confirm`, { method: 'POST', body: JSON.stringify({ challenge }) });
      const text = await response.text();
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(text), { pid: served.child.pid, answer: lockAnswer(lock.nonce, challenge) });
      assert.ok(!text.includes(lock.nonce));
      assert.equal((await fetch(`${served.url}/__hookbench/lock/confirm`, { method: 'POST', body: '{"challenge": "short"}' })).status, 400);
    } finally {
      await served.stop();
    }
  });

  it('takes over a lock naming a live process that is not a hookbench serve of this folder, and leaves that process alone', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-planted-'));
    const other = unrelated();
    try {
      fs.mkdirSync(path.dirname(lockFile(data)), { recursive: true, mode: 0o700 });
      // A bare pid, as earlier versions wrote and as anyone can plant: it proves nothing.
      fs.writeFileSync(lockFile(data), `${other.pid}\n`, { mode: 0o600 });
      const served = await startServe(['--data', data, '--no-render']);
      assert.equal(holderOf(data)?.pid, served.child.pid);
      await served.stop();
      // The right pid with another start time: a process that took a dead holder's pid.
      fs.writeFileSync(
        lockFile(data),
        formatServeLock({ pid: other.pid, startTime: '1', uid: process.getuid!(), nonce: randomBytes(32).toString('hex'), admin: '127.0.0.1:9' }),
        { mode: 0o600 },
      );
      const again = await startServe(['--data', data, '--no-render']);
      assert.equal(holderOf(data)?.pid, again.child.pid);
      await again.stop();
      process.kill(other.pid, 0);
    } finally {
      other.stop();
    }
  });

  it('keeps refusing while the process the lock names matches it but has not listened yet: it may be starting', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-starting-'));
    const other = unrelated();
    try {
      const identity = processIdentity(other.pid) as { startTime: string };
      fs.mkdirSync(path.dirname(lockFile(data)), { recursive: true, mode: 0o700 });
      fs.writeFileSync(
        lockFile(data),
        formatServeLock({ pid: other.pid, startTime: identity.startTime, uid: process.getuid!(), nonce: randomBytes(32).toString('hex') }),
        { mode: 0o600 },
      );
      const outcome = await startServe(['--data', data, '--no-render']).then(
        async (served) => (await served.stop(), 'it started'),
        (error: Error) => error.message,
      );
      assert.match(outcome, new RegExp(`in use by another hookbench serve \\(pid ${other.pid}\\)`));
    } finally {
      other.stop();
    }
  });
});
