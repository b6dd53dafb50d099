// Take Over (src/vscode/receiver/folderInUse.ts) stops only a process that proves it holds the data
// folder's lock: a real serve is stopped and this window's receiver started; a lock naming an
// unrelated process (one whose arguments even end in `cli.js serve`) is stale and nothing is
// stopped, however the lock was planted: a bare pid, a wrong start time, a proof that fails.
import '../../helpers/vscodeShim';
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { isRunning, processIdentity } from '../../../../src/core/childProcess';
import { folderInUseMessage } from '../../../../src/core/contract/serveHandshake';
import { formatServeLock, lockAnswer, parseLockConfirmRequest, serveLockFile } from '../../../../src/core/contract/serveLock';
import { nullLogger, recording } from '../../../../src/core/log';
import { offerTakeOver } from '../../../../src/vscode/receiver/folderInUse';
import { notifications } from '../../helpers/vscodeShim';
import { startServe } from '../../helpers/serveProcess';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  notifications.shown.length = 0;
});

function dataFolder(): string {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-take-over-'));
  cleanups.push(() => fs.rmSync(data, { recursive: true, force: true }));
  fs.mkdirSync(path.dirname(serveLockFile(data)), { recursive: true, mode: 0o700 });
  return data;
}

/** An unrelated long-running process whose arguments end like a serve's: `node …/cli.js serve`. */
async function decoy(): Promise<ChildProcess & { pid: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-decoy-'));
  fs.writeFileSync(path.join(dir, 'cli.js'), "process.stdout.write('up\\n');\nsetInterval(() => {}, 1 << 30);\n");
  const child = spawn(process.execPath, [path.join(dir, 'cli.js'), 'serve'], { stdio: ['ignore', 'pipe', 'ignore'] });
  cleanups.push(() => {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return child as ChildProcess & { pid: number };
}

/** Answers Take Over, then runs it; how many times this window's receiver was started. */
async function takeOver(data: string, pid: number): Promise<{ started: number; log: readonly string[] }> {
  notifications.choose = (message) => (message.items.includes('Take Over') ? 'Take Over' : undefined);
  const logger = recording(nullLogger);
  let started = 0;
  await offerTakeOver(folderInUseMessage(data, pid, serveLockFile(data)), logger, async () => started++);
  return { started, log: logger.lines() };
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null && isRunning(child.pid!);

describe('Take Over', () => {
  it('leaves alone the unrelated process a planted serve.lock names, and says the lock is stale', async () => {
    const data = dataFolder();
    const other = await decoy();
    fs.writeFileSync(serveLockFile(data), `${other.pid}\n`, { mode: 0o600 });
    const { started } = await takeOver(data, other.pid);
    assert.ok(alive(other), 'the process the lock named was not stopped');
    const said = notifications.shown.at(-1)!;
    assert.equal(said.level, 'info');
    assert.match(said.text, new RegExp(`^Hookbench: serve\\.lock names pid ${other.pid}, which is not a hookbench serve of this folder: the lock is stale \\(.+\\); nothing was stopped\\.$`));
    assert.equal(started, 1, 'this window\'s receiver takes the stale lock over');
  });

  it('leaves it alone when the planted lock has a proof that answers, but the pid names a process started at another time', async () => {
    const data = dataFolder();
    const other = await decoy();
    // Whoever plants the lock knows its nonce, and can answer for it from a server of its own.
    const nonce = randomBytes(32).toString('hex');
    const accomplice = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pid: other.pid, answer: lockAnswer(nonce, parseLockConfirmRequest(JSON.parse(body))!.challenge) })));
    });
    await new Promise<void>((resolve) => accomplice.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => accomplice.close(resolve)));
    const identity = processIdentity(other.pid);
    assert.ok(identity && identity !== 'no-proc', 'Linux /proc');
    const admin = `127.0.0.1:${(accomplice.address() as AddressInfo).port}`;
    fs.writeFileSync(serveLockFile(data), formatServeLock({ pid: other.pid, startTime: String(Number(identity.startTime) - 100), uid: process.getuid!(), nonce, admin }), { mode: 0o600 });
    await takeOver(data, other.pid);
    assert.ok(alive(other));
    assert.match(notifications.shown.at(-1)!.text, /the lock is stale \(that pid names a process started at another time\)/);
  });

  it('stops nothing and starts nothing when the process the lock names cannot prove it holds it', async () => {
    const data = dataFolder();
    const other = await decoy();
    const asked: string[] = [];
    const impostor = http.createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pid: other.pid, answer: '0'.repeat(64) }));
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => impostor.close(resolve)));
    const identity = processIdentity(other.pid) as { startTime: string };
    const admin = `127.0.0.1:${(impostor.address() as AddressInfo).port}`;
    fs.writeFileSync(serveLockFile(data), formatServeLock({ pid: other.pid, startTime: identity.startTime, uid: process.getuid!(), nonce: randomBytes(32).toString('hex'), admin }), { mode: 0o600 });
    const { started } = await takeOver(data, other.pid);
    assert.ok(alive(other));
    assert.deepEqual(asked, ['POST /__hookbench/lock/confirm']);
    const said = notifications.shown.at(-1)!;
    assert.equal(said.level, 'error');
    assert.match(said.text, new RegExp(`pid ${other.pid} holds the lock of .* but did not prove it is a hookbench serve of this folder \\(what answers at ${admin} could not prove it wrote the lock\\); nothing was stopped`));
    assert.equal(started, 0);
  });

  it('stops a real serve that proves it holds the folder, then starts this window\'s receiver', async () => {
    const data = dataFolder();
    const serve = await startServe(['--data', data, '--no-render']);
    const exited = new Promise((resolve) => serve.child.once('exit', (code, signal) => resolve(code ?? signal)));
    cleanups.push(() => serve.child.exitCode === null && serve.stop('SIGKILL'));
    const { started, log } = await takeOver(data, serve.child.pid!);
    assert.equal(await exited, 0, 'it drained and exited cleanly on SIGTERM');
    assert.ok(log.some((line) => line.includes(`taking the data folder over from the receiver of pid ${serve.child.pid}, which proved it holds`)), log.join('\n'));
    assert.equal(started, 1);
  });
});
