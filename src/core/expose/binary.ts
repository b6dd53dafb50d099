/**
 * A tunnel's own program (`cloudflared`, `stripe`) run as a child: found on the PATH first (a
 * missing one is one clear line, not ENOENT), its output read line by line until it says it is
 * ready, stopped with its whole process group (the npm `stripe` shim runs the real binary as its
 * own child).
 */
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../log';
import { realTimers, type Timers } from '../timers';
import { ExposeError } from './errors';

export type Spawn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** The executable `name` would run as, from the PATH in `env`; undefined when there is none. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = (env['PATH'] ?? '').split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  const names = process.platform === 'win32' ? (env['PATHEXT'] ?? '.EXE;.CMD;.BAT').split(';').map((ext) => name + ext.toLowerCase()) : [name];
  for (const dir of dirs) {
    for (const candidate of names) {
      const file = path.join(dir, candidate);
      try {
        fs.accessSync(file, fs.constants.X_OK);
        if (fs.statSync(file).isFile()) return file;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** Colors, bold and hyperlinks (OSC 8) that some programs print even when piped. */
export function stripAnsi(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

export interface BinaryOptions<T> {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** The value the program's output makes ready (a URL, a secret), or undefined while not yet. */
  readonly ready: (line: string) => T | undefined;
  /** The one line that says why it ended before it was ready, from everything it printed. */
  readonly explain: (lines: readonly string[], exit: string) => string;
  /** Each line, once ready: to the log. Lines before ready are logged by the caller's `ready` as it likes. */
  readonly onLine?: (line: string) => void;
  readonly timeoutMs?: number;
  readonly spawn?: Spawn;
  readonly timers?: Timers;
  /** Stops the program and rejects the start when aborted before it is ready (Ctrl+C while starting). */
  readonly signal?: AbortSignal;
}

export interface RunningBinary<T> {
  readonly value: T;
  /** Resolves when the program exits on its own (or is stopped). */
  readonly exited: Promise<string>;
  stop(): Promise<void>;
}

function forEachLine(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  let buffered = '';
  stream?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.search(/\r?\n|\r/)) >= 0) {
      const match = /\r?\n|\r/.exec(buffered.slice(newline))!;
      onLine(stripAnsi(buffered.slice(0, newline)));
      buffered = buffered.slice(newline + match[0].length);
    }
  });
  stream?.on('end', () => {
    if (buffered !== '') onLine(stripAnsi(buffered));
    buffered = '';
  });
}

/** Runs the program until its output says it is ready; rejects with an {@link ExposeError} when it ends or stalls first. */
export function startBinary<T>(options: BinaryOptions<T>): Promise<RunningBinary<T>> {
  const timers = options.timers ?? realTimers;
  const group = process.platform !== 'win32';
  const child = (options.spawn ?? nodeSpawn)(options.file, options.args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
  const exited = new Promise<string>((resolve) => {
    // 'close', not 'exit': by then everything it printed has been read.
    child.once('close', (code, signal) => resolve(signal ?? `code ${code}`));
    child.once('error', (error) => resolve(error.message));
  });
  const stop = async () => {
    if (child.pid === undefined) return;
    const kill = (signal: NodeJS.Signals) => {
      try {
        if (group) process.kill(-child.pid!, signal);
        else child.kill(signal);
      } catch {
        // already gone
      }
    };
    kill('SIGTERM');
    const hard = timers.after(5000, () => kill('SIGKILL'));
    await exited;
    hard.cancel();
  };
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let settled = false;
    const name = path.basename(options.file);
    const timeout = timers.after(options.timeoutMs ?? 60_000, () => {
      if (settled) return;
      settled = true;
      void stop();
      reject(new ExposeError(`${name} was not ready within ${(options.timeoutMs ?? 60_000) / 1000} s: ${options.explain(lines, 'still running')}`, 'failed'));
    });
    const onLine = (line: string) => {
      if (settled) return options.onLine?.(line);
      lines.push(line);
      const value = options.ready(line);
      if (value === undefined) return;
      settled = true;
      timeout.cancel();
      resolve({ value, exited, stop });
    };
    options.signal?.addEventListener('abort', () => {
      if (settled) return;
      settled = true;
      timeout.cancel();
      void stop();
      reject(new ExposeError(`${name} was stopped before it was ready`, 'failed'));
    });
    forEachLine(child.stdout, onLine);
    forEachLine(child.stderr, onLine);
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      timeout.cancel();
      reject(
        new ExposeError(
          error.code === 'ENOENT' ? `${name} is not on the PATH` : `${name} could not start: ${error.message}`,
          error.code === 'ENOENT' ? 'missing-binary' : 'failed',
        ),
      );
    });
    void exited.then((exit) => {
      if (settled) return;
      settled = true;
      timeout.cancel();
      reject(new ExposeError(options.explain(lines, exit), 'failed'));
    });
  });
}
