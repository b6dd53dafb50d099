// `hookbench serve` as a real child process (the built dist/cli.js), on port 0, started as the
// extension starts it (with SERVE_PROCESS_ENV); a start from a shell, without it, is tested in
// test/unit/launcher/serveAllocator.test.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { SERVE_PROCESS_ENV } from '../../../src/core/contract/serveEnvironment';
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
      const url = stdout.split('\n').slice(0, -1).map(listeningUrl).find((found) => found !== undefined);
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
