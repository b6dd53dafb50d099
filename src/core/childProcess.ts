/**
 * Helpers for the processes Hookbench runs or meets (`hookbench serve`, `hookbench expose`, a
 * data folder's lock holder): their output read line by line, a stop that asks first and insists
 * after a grace period, and whether a pid is still running.
 */
import type { ChildProcess } from 'node:child_process';

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
