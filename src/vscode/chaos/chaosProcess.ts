/**
 * One `hookbench chaos --json --progress` child process, run with the extension host's own Node
 * as the receiver is (docs/chaos.md, "In VS Code"): the workspace's worker runs in it, never in
 * the extension host; its progress lines are passed on as they come; its report is read with the
 * contract's parser; cancelling stops it (SIGTERM, then SIGKILL).
 */
import { spawn } from 'node:child_process';
import { forEachLine, stopChild } from '../../core/childProcess';
import { parseChaosReport, type ChaosReport } from '../../core/contract/chaos';
import type { ServeLaunch } from '../receiver/serveProcess';

export interface ChaosRequest {
  /** The fixture set's folder, absolute: the replay sets are written under it. */
  readonly suite: string;
  readonly seed: number;
  readonly runs: number;
}

export interface ChaosRun {
  /** Each line the run prints about its progress (the baseline, a perturbation's verdict). */
  readonly onProgress: (line: string) => void;
  /** Resolves when the user cancels: the child is stopped. */
  readonly cancelled: Promise<void>;
}

/** Thrown when the run was cancelled: nothing to report. */
export class ChaosCancelled extends Error {
  constructor() {
    super('the chaos run was cancelled');
  }
}

const STOP_GRACE_MS = 2_000;

export function chaosArgs(launch: ServeLaunch, request: ChaosRequest): string[] {
  return [launch.cli, 'chaos', request.suite, '--json', '--progress', '--seed', String(request.seed), '--runs', String(request.runs), ...launch.args];
}

/** Runs the engine on the suite; resolves with its report, rejects with the CLI's own one-line error. */
export function runChaosProcess(launch: ServeLaunch, request: ChaosRequest, run: ChaosRun): Promise<ChaosReport> {
  const child = spawn(process.execPath, chaosArgs(launch, request), { cwd: launch.cwd, env: launch.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderrTail = '';
  let cancelled = false;
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  forEachLine(child.stderr!, (line) => {
    stderrTail = (stderrTail + line + '\n').slice(-2000);
    if (line.trim()) run.onProgress(line);
  });
  void run.cancelled.then(() => {
    cancelled = true;
    return stopChild(child, STOP_GRACE_MS);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (cancelled) return reject(new ChaosCancelled());
      // 0: nothing diverged; 1: something did. Both print a report; anything else is a failure.
      if (code !== 0 && code !== 1)
        return reject(new Error(`hookbench chaos exited with ${signal ?? `code ${code}`}: ${lastLine(stderrTail) || 'no message'}`));
      try {
        resolve(parseChaosReport(stdout));
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

/** The CLI's error line (`hookbench chaos: …`, then its usage for a usage error), or the last line. */
function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  const error = lines.findLast((line) => /^hookbench( chaos)?: /.test(line));
  return (error ?? lines.at(-1) ?? '').replace(/^hookbench( chaos)?: /, '');
}
