// `hookbench serve` as a real child process (the built dist/cli.js), on port 0, started as the
// extension starts it (with SERVE_PROCESS_ENV); a start from a shell, without it, is tested in
// test/unit/launcher/serveAllocator.test.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SERVE_PROCESS_ENV } from '../../../src/core/contract/serveEnvironment';
import { isRunning } from '../../../src/core/childProcess';
import { parseServeLock, serveLockFile, type ServeLock } from '../../../src/core/contract/serveLock';
import { listeningUrl } from '../../../src/core/contract/serveHandshake';
import { projectRoot } from './serveWorker';

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly stdout: () => string;
  /** Sends the signal and resolves with the exit code (or signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const cli = path.join(projectRoot(), 'dist', 'cli.js');
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--render-port', '0', ...args], {
    env: { ...SERVE_PROCESS_ENV, ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      // Whole lines only: a chunk may end inside the URL.
      const url = stdout
        .split('\n')
        .slice(0, -1)
        .map(listeningUrl)
        .find((found) => found !== undefined);
      if (url) {
        resolve({
          url,
          child,
          stderr: () => stderr,
          stdout: () => stdout,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code} before listening:\n${stderr}`)));
  });
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Resolves with the data folder's lock once it names a listening holder. */
export async function listeningLock(data: string): Promise<ServeLock> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    try {
      const found = parseServeLock(fs.readFileSync(serveLockFile(data), 'utf8'));
      if (found?.admin) return found;
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no listening serve in ${data}`);
}

/** A `hookbench serve` on `data` started as the command line `serve …args` in `shellCommand`'s place. */
const serveCommand = (data: string, args: string) =>
  `${quote(process.execPath)} ${quote(path.join(projectRoot(), 'dist', 'cli.js'))} serve --data ${quote(data)} --port 0 --no-render ${args}`;

/**
 * A serve as VS Code starts it (`--exit-with-parent`) whose window went away: its parent (a
 * subshell) exits at once and init adopts it, while its stdin, the window's pipe, stays open as
 * long as the outer shell sleeps (node closes a child's pipes when that child exits). A shell's
 * background job reads /dev/null unless told otherwise: `<&3` keeps the pipe. `kill` ends both.
 */
export async function orphanedVscodeServe(data: string): Promise<{ lock: ServeLock; kill(): void }> {
  const parent = spawn('sh', ['-c', `exec 3<&0; ( ${serveCommand(data, '--exit-with-parent')} <&3 >/dev/null 2>&1 & ); exec sleep 600`], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const lock = await listeningLock(data);
  return {
    lock,
    kill() {
      parent.kill('SIGKILL');
      if (isRunning(lock.pid)) process.kill(lock.pid, 'SIGKILL');
    },
  };
}

/** A serve typed into a terminal: a shell reading its commands from its input (no -c), as one in a terminal does. */
export async function terminalServe(data: string, args = ''): Promise<{ lock: ServeLock; shell: ChildProcess; kill(): void }> {
  const shell = spawn('bash', ['--norc', '--noprofile'], { stdio: ['pipe', 'ignore', 'ignore'] });
  shell.stdin!.write(`${serveCommand(data, args)}\n`);
  const lock = await listeningLock(data);
  return {
    lock,
    shell,
    kill() {
      shell.kill('SIGKILL');
      if (isRunning(lock.pid)) process.kill(lock.pid, 'SIGKILL');
    },
  };
}
