// Take Over (src/vscode/receiver/folderInUse.ts) is offered only for a holder proven stale, and
// always asks first, in a modal that names the pid it will stop: declined, nothing is stopped;
// accepted, that serve drains and exits and this window's receiver starts. A holder that proves
// nothing (pid and start time match, the proof fails) is never stopped and no Take Over is asked.
// A live serve (a terminal's) never gets here: the views attach to it (src/core/serveHolder.ts).
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
import { formatServeLock, serveLockFile } from '../../../../src/core/contract/serveLock';
import { nullLogger, recording } from '../../../../src/core/log';
import { findHolding } from '../../../../src/core/serveHolder';
import { offerTakeOver } from '../../../../src/vscode/receiver/folderInUse';
import { DataFolderHeldError } from '../../../../src/vscode/receiver/dataFolderHolder';
import { notifications } from '../../helpers/vscodeShim';
import { orphanedVscodeServe } from '../../helpers/serveProcess';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  notifications.shown.length = 0;
  notifications.choose = () => undefined;
});

function dataFolder(): string {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-take-over-'));
  cleanups.push(() => fs.rmSync(data, { recursive: true, force: true }));
  fs.mkdirSync(path.dirname(serveLockFile(data)), { recursive: true, mode: 0o700 });
  return data;
}

/** What the window would be told: the holding as the receiver's start finds it. */
async function held(data: string): Promise<DataFolderHeldError> {
  const holding = await findHolding(data, { timeoutMs: 1000 });
  assert.ok(holding.kind === 'unproven' || (holding.kind === 'stale' && holding.stops), `held, not ${JSON.stringify(holding)}`);
  return new DataFolderHeldError(data, holding);
}

/** Runs Take Over with `answer` as the user's choice in whatever it asks; how many times this window's receiver was started. */
async function takeOver(data: string, answer: string | undefined): Promise<{ started: number; log: readonly string[] }> {
  notifications.choose = (message) => (answer !== undefined && message.items.includes(answer) ? answer : undefined);
  const logger = recording(nullLogger);
  let started = 0;
  await offerTakeOver(await held(data), logger, async () => started++);
  return { started, log: logger.lines() };
}

async function gone(pid: number): Promise<boolean> {
  for (let waited = 0; isRunning(pid) && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  return !isRunning(pid);
}

describe('Take Over', () => {
  it('asks in a modal naming the stale serve it would stop; declined, it stops and starts nothing', async () => {
    const data = dataFolder();
    const serve = await orphanedVscodeServe(data);
    cleanups.push(() => serve.kill());
    const { started } = await takeOver(data, undefined);
    const asked = notifications.shown.at(-1)!;
    assert.ok(asked.modal, 'a modal');
    assert.equal(asked.text, `Stop the hookbench serve of pid ${serve.lock.pid} and take over ${data}?`);
    assert.deepEqual(asked.items, ['Stop It and Take Over']);
    assert.ok(isRunning(serve.lock.pid), 'not stopped');
    assert.equal(started, 0);
  });

  it("accepted, stops the stale serve (it drains and exits) and starts this window's receiver", async () => {
    const data = dataFolder();
    const serve = await orphanedVscodeServe(data);
    cleanups.push(() => serve.kill());
    const { started, log } = await takeOver(data, 'Stop It and Take Over');
    assert.ok(await gone(serve.lock.pid), 'stopped');
    assert.ok(
      log.some((line) =>
        line.includes(`taking ${data} over from the hookbench serve of pid ${serve.lock.pid}: it was started by a VS Code window that is gone`),
      ),
      log.join('\n'),
    );
    assert.equal(started, 1);
    assert.equal((await findHolding(data)).kind, 'free', 'it released the lock as it stopped');
  });

  it('stops nothing, asks nothing, and starts nothing when the holder cannot prove it holds the folder', async () => {
    const data = dataFolder();
    // A process whose arguments end like a serve's, answering the proof wrongly from a server beside it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-decoy-'));
    fs.writeFileSync(path.join(dir, 'cli.js'), "process.stdout.write('up\\n');\nsetInterval(() => {}, 1 << 30);\n");
    const decoy: ChildProcess = spawn(process.execPath, [path.join(dir, 'cli.js'), 'serve'], { stdio: ['ignore', 'pipe', 'ignore'] });
    cleanups.push(() => {
      decoy.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    });
    await new Promise((resolve) => decoy.stdout!.once('data', resolve));
    const impostor = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pid: decoy.pid, answer: '0'.repeat(64) })),
    );
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => impostor.close(resolve)));
    const identity = processIdentity(decoy.pid!) as { startTime: string };
    const admin = `127.0.0.1:${(impostor.address() as AddressInfo).port}`;
    fs.writeFileSync(
      serveLockFile(data),
      formatServeLock({ pid: decoy.pid!, startTime: identity.startTime, uid: process.getuid!(), nonce: randomBytes(32).toString('hex'), admin }),
      { mode: 0o600 },
    );
    const { started } = await takeOver(data, 'Stop It and Take Over');
    assert.ok(isRunning(decoy.pid!));
    const said = notifications.shown.at(-1)!;
    assert.equal(said.level, 'error');
    assert.ok(!said.modal && !notifications.shown.some((shown) => shown.modal), 'no Take Over asked');
    assert.match(
      said.text,
      new RegExp(
        `pid ${decoy.pid} holds the data folder .* but did not prove it is a hookbench serve of it \\(what answers at ${admin} could not prove it wrote the lock\\); nothing was stopped`,
      ),
    );
    assert.equal(started, 0);
  });
});
