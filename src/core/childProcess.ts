/**
 * Helpers for the processes Hookbench runs or meets (`hookbench serve`, `hookbench expose`, a
 * data folder's lock holder): their output read line by line, a stop that asks first and insists
 * after a grace period, whether a pid is still running, and which process a pid names now.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';

/** Calls `onLine` for every complete line of `stream` (UTF-8, without the newline). */
export function forEachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
    }
  });
}

/** SIGTERM (the child drains and exits), then SIGKILL after `graceMs`; resolves once it is gone and its pipes closed. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await closed;
  clearTimeout(timer);
}

/** Whether `pid` is running: EPERM means it exists, under another user. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Who a process is, as Linux's /proc tells: with the pid, its start time names one process for the machine's uptime. */
export interface ProcessIdentity {
  /** `/proc/<pid>/stat` field 22: clock ticks from boot to the process's start. */
  readonly startTime: string;
  /** Its real user id (`/proc/<pid>/status`, `Uid:`). */
  readonly uid: number;
}

/**
 * `pid`'s identity from /proc: undefined when the process is gone (or cannot be read); `'no-proc'`
 * where the system has no /proc of Linux's kind (macOS, Windows).
 */
export function processIdentity(pid: number): ProcessIdentity | undefined | 'no-proc' {
  if (!hasProc()) return 'no-proc';
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses; field 3 starts after the last ')'.
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
    const uid = /^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (!startTime || !/^\d+$/.test(startTime) || uid === undefined) return undefined;
    return { startTime, uid: Number(uid) };
  } catch {
    return undefined;
  }
}

function hasProc(): boolean {
  try {
    return process.platform === 'linux' && fs.readFileSync('/proc/self/stat', 'utf8').length > 0;
  } catch {
    return false;
  }
}

/** A process as /proc shows it: its arguments and its parent. */
export interface ProcessLine {
  readonly pid: number;
  /** `/proc/<pid>/cmdline`, split at its NULs. */
  readonly argv: readonly string[];
  /** `/proc/<pid>/stat` field 4. */
  readonly ppid: number;
}

/** `pid`'s arguments and parent, or undefined when it is gone or there is no /proc of Linux's kind. */
export function processLine(pid: number): ProcessLine | undefined {
  if (!hasProc()) return undefined;
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '').split('\0');
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[4 - 3]);
    return Number.isSafeInteger(ppid) ? { pid, argv, ppid } : undefined;
  } catch {
    return undefined;
  }
}

/** `pid` and up to `depth` of its ancestors, nearest first, as far as /proc names them. */
export function processChain(pid: number, depth = 6): ProcessLine[] {
  const chain: ProcessLine[] = [];
  for (let next: number | undefined = pid; next !== undefined && next > 0 && chain.length <= depth;) {
    const line = processLine(next);
    if (!line) break;
    chain.push(line);
    next = line.ppid;
  }
  return chain;
}
