/**
 * The two runtimes an area runs on, each a child process on 127.0.0.1 with its data in a temp
 * folder: the oracle (`wrangler dev`: Miniflare and workerd, offline, no metrics, no update
 * check, its own config home) and `hookbench serve --worker`. Each is started in its own process
 * group and stopped with it, so workerd goes with wrangler.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

export interface RunningRuntime {
  readonly name: 'oracle' | 'hookbench';
  readonly origin: string;
  /** Everything the process printed, for the report when something goes wrong. */
  output(): string;
  stop(): Promise<void>;
}

/** How long a runtime may take to say it is ready (wrangler bundles and starts workerd). */
const START_TIMEOUT_MS = 90_000;

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The environment both runtimes get: no metrics, no update check, no `cf` download, a private config home. */
export function quietEnv(configHome: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    NO_UPDATE_NOTIFIER: '1',
    // wrangler asks the registry for a newer version while it prints its banner, whatever
    // NO_UPDATE_NOTIFIER says; with the banner hidden it asks nothing.
    WRANGLER_HIDE_BANNER: 'true',
    XDG_CONFIG_HOME: configHome,
    // Colourless, prompt-free output to match lines against.
    CI: '1',
    FORCE_COLOR: '0',
  };
}

function start(name: RunningRuntime['name'], command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<RunningRuntime> {
  const child: ChildProcess = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return resolve();
      }
      const hard = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 10_000);
      hard.unref();
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name} did not say it was ready in ${START_TIMEOUT_MS / 1000} s:\n${tail(output)}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const plain = withoutColour(output);
      const match = ready.exec(plain);
      // wrangler dev keeps running after a failed build, waiting for an edit: fail now instead.
      const broken = /\[ERROR\][^\n]*/.exec(plain);
      if (!match && broken) {
        clearTimeout(timer);
        void stop();
        reject(new Error(`${name} failed to start: ${broken[0]}\n${tail(output)}`));
      } else if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.on('data', (more: Buffer) => (output += more.toString('utf8')));
        resolve({ name, origin: match[1]!, output: () => output, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${name} could not start: ${error.message}`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${signal ?? code}) before it was ready:\n${tail(output)}`));
    });
  });
}

function withoutColour(text: string): string {
  return stripVTControlCharacters(text);
}

/** The last lines of a process's output, for an error message. */
export function tail(text: string, lines = 15): string {
  return withoutColour(text)
    .trimEnd()
    .split('\n')
    .slice(-lines)
    .map((line) => `    ${line}`)
    .join('\n');
}

export interface StartOptions {
  /** The area's folder (a copy the runtimes may write `.wrangler/` and bundles into). */
  readonly folder: string;
  readonly config: string;
  readonly entry: string;
  readonly flags: readonly string[];
  /** A temp folder this area owns: persistence and config homes go under it. */
  readonly scratch: string;
}

/** `wrangler dev` on a free port with an inspector port of its own (two runs must not share 9229). */
export async function startOracle(wranglerBin: string, options: StartOptions): Promise<RunningRuntime> {
  const [port, inspector] = [await freePort(), await freePort()];
  const persist = path.join(options.scratch, 'oracle-state');
  const args = [
    wranglerBin,
    'dev',
    '--config',
    options.config,
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-port',
    String(inspector),
    '--persist-to',
    persist,
    '--show-interactive-dev-session=false',
    ...options.flags,
  ];
  return start('oracle', process.execPath, args, options.folder, quietEnv(path.join(options.scratch, 'oracle-config')), /Ready on (http:\/\/[^\s]+)/);
}

/** `hookbench serve --worker <entry>` from this checkout's dist/cli.js, on any free port. */
export async function startHookbench(cli: string, options: StartOptions, extraFlags: readonly string[]): Promise<RunningRuntime> {
  const args = [
    cli,
    'serve',
    '--worker',
    options.entry,
    '--config',
    options.config,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--no-render',
    '--no-watch',
    '--data',
    path.join(options.scratch, 'hookbench-data'),
    ...options.flags,
    ...extraFlags,
  ];
  const env = { ...quietEnv(path.join(options.scratch, 'hookbench-config')), HOOKBENCH_ADMIN_TOKEN: 'differential' };
  return start('hookbench', process.execPath, args, options.folder, env, /listening on (http:\/\/[^\s]+)/);
}

/** A fresh temp folder for one area's run. */
export function scratchFolder(area: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `hookbench-differential-${area.replace(/[^\w-]/g, '_')}-`));
}
