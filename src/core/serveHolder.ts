/**
 * Who holds a data folder, for a second client of it (VS Code on a folder where a `hookbench
 * serve` already runs): a live serve to attach to, a holder proven stale that Take Over may stop,
 * or one that proves neither (docs/security.md, The data folder's lock). The lock's proof
 * (src/core/lockHolder.ts) says whether the pid is the serve that wrote it; /proc says what
 * started it: a terminal, a task, or VS Code (whose serves carry `--exit-with-parent`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { processChain, processLine, type ProcessLine } from './childProcess';
import { serveLockFile, type ServeLock } from './contract/serveLock';
import { checkLock, type LockCheckOptions, type LockVerdict } from './lockHolder';

/** What started a serve, as far as its ancestors tell. */
export type HolderOrigin =
  /** An interactive shell: a terminal (VS Code's own, or any other). */
  | { readonly kind: 'terminal'; readonly shell: string }
  /** A shell running a command (`sh -c`), an npm script: a task or a script. */
  | { readonly kind: 'task'; readonly by: string }
  /** A VS Code window's extension host (the serve was started with `--exit-with-parent`). */
  | { readonly kind: 'vscode' }
  /** Something else, or nothing /proc can tell. */
  | { readonly kind: 'unknown'; readonly by?: string };

export type Holding =
  | { readonly kind: 'free' }
  /** Provably no live serve of this folder's: taking it over is safe; `stops` is what must be stopped first. */
  | { readonly kind: 'stale'; readonly reason: string; readonly pid?: number; readonly stops?: ServeLock }
  /** A serve that proved it holds the folder, and is no one's leftover: attach to it. */
  | { readonly kind: 'live'; readonly lock: ServeLock; readonly origin: HolderOrigin }
  /** It may hold the folder (starting, or not answering) but did not prove it: neither attach nor stop. */
  | { readonly kind: 'unproven'; readonly lock: ServeLock; readonly reason: string };

/** The mark of a serve VS Code started: it stops when its extension host closes its stdin. */
const VSCODE_MARKER = '--exit-with-parent';
const SHELLS = new Set(['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh', 'tcsh', 'csh', 'pwsh', 'nu', 'xonsh', 'elvish']);
const RUNNERS = new Set(['node', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'tsx']);
/** What adopts an orphan: the init of the machine, of a container, or of a user session. */
const REAPERS = new Set(['init', 'systemd', 'tini', 'dumb-init', 'docker-init', 'launchd']);

const command = (line: ProcessLine): string => path.basename(line.argv[0] ?? '').replace(/^-/, '');

/** Whether `argv` is `hookbench serve`: the CLI's script (`cli.js`, `hookbench`), then `serve`. */
export function isHookbenchServe(argv: readonly string[]): boolean {
  const at = argv.indexOf('serve');
  return at > 0 && /(^|[/\\])(cli\.js|hookbench(\.js|\.cmd)?)$/.test(argv[at - 1]!);
}

/** What started `chain[0]`, from its ancestors (`chain[1]` its parent, and so on). */
export function holderOrigin(chain: readonly ProcessLine[]): HolderOrigin {
  if (chain[0]?.argv.includes(VSCODE_MARKER)) return { kind: 'vscode' };
  let task: string | undefined;
  for (const ancestor of chain.slice(1)) {
    const name = command(ancestor);
    if (SHELLS.has(name)) {
      if (!ancestor.argv.includes('-c')) return { kind: 'terminal', shell: name };
      task ??= ancestor.argv.join(' ');
    } else if (RUNNERS.has(name)) task ??= ancestor.argv.slice(0, 3).join(' ');
    else break;
  }
  if (task) return { kind: 'task', by: task };
  return chain[1] ? { kind: 'unknown', by: command(chain[1]) } : { kind: 'unknown' };
}

/** The origin in words: "in a terminal (bash)", "from another VS Code window (or this tab before a reload)". */
export function originText(origin: HolderOrigin): string {
  switch (origin.kind) {
    case 'terminal':
      return `in a terminal (${origin.shell})`;
    case 'task':
      return `from a task or script (${clip(origin.by, 60)})`;
    case 'vscode':
      return 'from another VS Code window (or this tab before a reload)';
    case 'unknown':
      return origin.by ? `started by ${origin.by}` : 'started outside VS Code';
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Whether a serve VS Code started has lost its window: its parent is gone, it was adopted by an
 * init, or its parent is the extension host asking (`self`), which runs no such serve.
 */
function orphaned(chain: readonly ProcessLine[], self: number): boolean {
  const [serve, parent] = chain;
  if (!serve?.argv.includes(VSCODE_MARKER)) return false;
  return serve.ppid === 1 || serve.ppid === self || (parent !== undefined && REAPERS.has(command(parent)));
}

/**
 * The chain as if serve had not started itself again: on a Node without `process.execve`, a serve
 * started without its allocator settings relays to a child serve (src/serveAllocator.ts), and the
 * lock names the child. Its parent is then that relay, whose own parent is what started serve.
 */
function withoutRelay(chain: readonly ProcessLine[]): readonly ProcessLine[] {
  const [serve, relay] = chain;
  if (!serve || !relay || relay.pid !== serve.ppid || !isHookbenchServe(relay.argv)) return chain;
  return [{ ...serve, ppid: relay.ppid }, ...chain.slice(2)];
}

/**
 * Decides, from the lock's verdict and the holder's process chain (empty without /proc), what
 * the extension of process `self` may do: attach to a live serve, take over a stale holder
 * (stopping only one proven stale), or nothing.
 */
export function judgeHolding(verdict: LockVerdict, processes: readonly ProcessLine[], self: number): Holding {
  const chain = withoutRelay(processes);
  switch (verdict.kind) {
    case 'free':
      return verdict;
    case 'stale':
      return { kind: 'stale', reason: verdict.reason, ...(verdict.pid !== undefined ? { pid: verdict.pid } : {}) };
    case 'own':
      return { kind: 'stale', reason: "it names this window's extension host, which is no serve", pid: verdict.lock.pid };
    case 'unconfirmed': {
      const holder = chain[0];
      if (holder && !isHookbenchServe(holder.argv))
        return { kind: 'stale', reason: `pid ${holder.pid} is ${command(holder) || 'a process'}, not a hookbench serve`, pid: holder.pid };
      return { kind: 'unproven', lock: verdict.lock, reason: verdict.reason };
    }
    case 'holder':
      if (orphaned(chain, self))
        return { kind: 'stale', reason: 'it was started by a VS Code window that is gone', pid: verdict.lock.pid, stops: verdict.lock };
      return { kind: 'live', lock: verdict.lock, origin: holderOrigin(chain) };
  }
}

/** Who holds `dataDir` now, as this process (an extension host) may act on it. */
export async function findHolding(dataDir: string, options: LockCheckOptions = {}): Promise<Holding> {
  const verdict = await checkLock(serveLockFile(dataDir), options);
  const pid = verdict.kind === 'holder' || verdict.kind === 'unconfirmed' ? verdict.lock.pid : undefined;
  return judgeHolding(verdict, pid === undefined ? [] : processChain(pid), process.pid);
}

/** The data folder a `hookbench serve`'s arguments name (`--data`, default `.hookbench`), resolved in its working folder `cwd`. */
export function serveDataFolder(argv: readonly string[], cwd: string): string | undefined {
  if (!isHookbenchServe(argv)) return undefined;
  let data = '.hookbench';
  for (let i = argv.indexOf('serve') + 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--data' && i + 1 < argv.length) data = argv[++i]!;
    else if (arg.startsWith('--data=')) data = arg.slice('--data='.length);
  }
  return path.resolve(cwd, data);
}

/**
 * The live serve of process `pid` (found listening where the workspace points) with the data
 * folder it holds, read from /proc: undefined when `pid` is no hookbench serve, or not the one
 * that proves it holds the folder its arguments name.
 */
export async function findServeOf(
  pid: number,
  options: LockCheckOptions = {},
): Promise<{ readonly dataDir: string; readonly holding: Extract<Holding, { kind: 'live' }> } | undefined> {
  const line = processLine(pid);
  let cwd: string;
  try {
    cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
  const dataDir = line && serveDataFolder(line.argv, cwd);
  if (!dataDir) return undefined;
  const holding = await findHolding(dataDir, options);
  return holding.kind === 'live' && holding.lock.pid === pid ? { dataDir, holding } : undefined;
}
