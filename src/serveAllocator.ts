/**
 * `hookbench serve` with the allocator environment it needs (SERVE_PROCESS_ENV), however it is
 * started. glibc reads `MALLOC_MMAP_THRESHOLD_` at process start only, so a serve started from a
 * shell, npx or CI, where nobody set it, keeps freed database buffers in a heap that never shrinks
 * (docs/performance.md, "Where it goes"). The launcher (src/cliLauncher.ts) then starts itself
 * again with the environment set. Where Node has `process.execve` (22.15, 23.11 and later) the
 * process replaces itself: same pid, nothing between serve and its signals. On an older Node it
 * starts a child and only relays (the parent stays, a bare Node's RSS: docs/performance.md, "Where
 * it goes"): the child is in a process group of its own, so a terminal's Ctrl-C reaches it once,
 * through the parent; every signal the parent gets is sent on; the parent exits with the child's
 * code, or dies of the child's signal; the child stops (as on SIGTERM) when the parent goes away
 * without a signal it could relay (SIGKILL).
 * A marker variable guards against a second re-exec; `HOOKBENCH_NO_REEXEC=1` turns it off.
 */
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import { SERVE_PROCESS_ENV } from './core/contract/serveEnvironment';

/** Set in the child's environment: a process that has it never re-executes itself. */
export const REEXEC_MARKER_ENV = 'HOOKBENCH_SERVE_REEXEC';

/**
 * Signals relayed to the child; each one the child does not handle ends it, and then the parent.
 * (Not SIGUSR1: Node keeps it for its inspector.)
 */
const RELAYED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'];

/**
 * The environment to start serve again with, or undefined when this process should run serve
 * itself: another command, a platform without glibc's variable, the variables already set (by
 * the extension, the benchmarks or the user), or this process being the re-executed child.
 */
export function allocatorEnvironment(argv: readonly string[], env: NodeJS.ProcessEnv, platform: NodeJS.Platform): NodeJS.ProcessEnv | undefined {
  if (argv[0] !== 'serve' || platform !== 'linux') return undefined;
  if (env[REEXEC_MARKER_ENV] !== undefined || env['HOOKBENCH_NO_REEXEC'] === '1') return undefined;
  const missing = Object.keys(SERVE_PROCESS_ENV).filter((name) => env[name] === undefined);
  if (missing.length === 0) return undefined;
  return { ...env, ...SERVE_PROCESS_ENV, [REEXEC_MARKER_ENV]: '1' };
}

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/** Runs this same command again with `env`: in this process where Node can, else as a relayed child. */
export function runAgainWith(env: NodeJS.ProcessEnv): void {
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve !== 'function') return relayToChild(env);
  // Node flushes nothing of ours at this point: the launcher has written nothing yet.
  execve.call(process, process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], env);
}

/**
 * Runs this same command again as a child with `env` and relays to it until it ends; this process
 * then ends the same way (code, or signal).
 */
function relayToChild(env: NodeJS.ProcessEnv): void {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  // The channel only tells the child that this process is gone: the child's exit is what this process waits for.
  (child as unknown as { channel?: { unref(): void } }).channel?.unref();
  const relay = (signal: NodeJS.Signals) => (): void => {
    child.kill(signal);
  };
  const handlers = RELAYED.map((signal) => [signal, relay(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  child.once('error', (error) => {
    process.stderr.write(`hookbench: could not start serve with its allocator settings: ${error.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    for (const [name, handler] of handlers) process.off(name, handler);
    if (!signal) process.exit(code ?? 1);
    process.kill(process.pid, signal);
    // A signal this process cannot die of: the shell's convention for a death by signal.
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  });
}

/** In the re-executed child: stops serve, as SIGTERM does, when the parent is gone. */
export function followParent(env: NodeJS.ProcessEnv): void {
  if (env[REEXEC_MARKER_ENV] === undefined || !process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
