// A serve the extension launches states its admin protocol before it says it listens
// (src/core/contract/serveHandshake.ts): this extension's own serve runs; one that states another
// protocol, or none, is stopped and the start fails with one line saying which. Real processes: the
// built dist/cli.js, and a script that speaks as a serve of another version would.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ADMIN_PROTOCOL_VERSION, ProtocolMismatchError } from '../../../../src/core/contract/adminProtocol';
import { SERVE_PROCESS_ENV } from '../../../../src/core/contract/serveEnvironment';
import { listeningLine, protocolLine } from '../../../../src/core/contract/serveHandshake';
import { nullLogger } from '../../../../src/core/log';
import { ServeProcess, type ServeState } from '../../../../src/vscode/receiver/serveProcess';
import { projectRoot } from '../../helpers/serveWorker';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function folder(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A serve that writes its pid to `pidFile`, prints `lines` and waits to be stopped, as a serve of another version would. */
function otherServe(lines: string[], pidFile: string): string {
  const cli = path.join(folder('hb-other-serve-'), 'cli.js');
  fs.writeFileSync(
    cli,
    `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nprocess.stdout.write(${JSON.stringify(lines.map((line) => `${line}\n`).join(''))});\nsetInterval(() => {}, 1 << 30);\n`,
  );
  return cli;
}

/** Starts `cli` as the extension does, with every state it reports; resolves once the start settled. */
async function launch(cli: string, args: string[] = []): Promise<{ started: PromiseSettledResult<string>; serve: ServeProcess; states: ServeState[] }> {
  const serve = new ServeProcess(nullLogger);
  cleanups.push(async () => {
    await serve.stop();
    serve.dispose();
  });
  const states: ServeState[] = [];
  serve.onDidChangeState((state) => states.push(state));
  const [started] = await Promise.allSettled([serve.start({ cli, args, env: { ...SERVE_PROCESS_ENV, ...process.env }, cwd: os.tmpdir() })]);
  return { started: started!, serve, states };
}

/** Resolves once the process reported `count` states in all. */
function reported(serve: ServeProcess, states: readonly ServeState[], count: number): Promise<void> {
  if (states.length >= count) return Promise.resolve();
  return new Promise((resolve) => {
    const listener = serve.onDidChangeState(() => {
      if (states.length < count) return;
      listener.dispose();
      resolve();
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a launched serve', () => {
  it("runs when it is this extension's own, which states this protocol", async () => {
    const data = folder('hb-launch-');
    const { started, serve } = await launch(path.join(projectRoot(), 'dist', 'cli.js'), ['--data', data, '--port', '0', '--no-render']);
    assert.equal(started.status, 'fulfilled', started.status === 'rejected' ? String(started.reason) : '');
    assert.equal(serve.state.kind, 'running');
  });

  it('is stopped, and the start fails in one line, when it states another protocol', async () => {
    const pidFile = path.join(folder('hb-other-pid-'), 'pid');
    const cli = otherServe([protocolLine(ADMIN_PROTOCOL_VERSION + 1), listeningLine('http://127.0.0.1:9')], pidFile);
    const { started, serve, states } = await launch(cli);
    assert.equal(started.status, 'rejected');
    const reason = (started as PromiseRejectedResult).reason as Error;
    assert.ok(reason instanceof ProtocolMismatchError);
    const line = `the hookbench serve this window started (${cli}) speaks admin protocol ${ADMIN_PROTOCOL_VERSION + 1}, and this extension speaks ${ADMIN_PROTOCOL_VERSION}: stopped. Reinstall or update the extension: its bundled serve is not its own version`;
    assert.equal(reason.message, line);
    // starting, failed on the line, failed again once the SIGTERM the refusal sent has ended it.
    await reported(serve, states, 3);
    assert.deepEqual(states, [{ kind: 'starting' }, { kind: 'failed', message: line }, { kind: 'failed', message: line }]);
    assert.ok(!isAlive(Number(fs.readFileSync(pidFile, 'utf8'))), 'the process is gone');
  });

  it('is stopped when it states no protocol (a serve from before it was stated)', async () => {
    const { started } = await launch(otherServe([listeningLine('http://127.0.0.1:9')], path.join(folder('hb-other-pid-'), 'pid')));
    assert.equal(started.status, 'rejected');
    assert.match(
      ((started as PromiseRejectedResult).reason as Error).message,
      new RegExp(`states no admin protocol \\(a hookbench from before it was stated\\), and this extension speaks ${ADMIN_PROTOCOL_VERSION}: stopped`),
    );
  });
});
