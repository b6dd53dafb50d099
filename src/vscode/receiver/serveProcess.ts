/**
 * One `hookbench serve` child process, run with the extension host's own Node
 * (`process.execPath`): started, its log lines forwarded, its URL read from "listening on" (the
 * lines: src/core/contract/serveHandshake.ts), and stopped with SIGTERM (the server drains and
 * commits) or, after a grace period, SIGKILL. A serve that states another admin protocol than this
 * extension's (src/core/contract/adminProtocol.ts) is stopped as soon as it says it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Emitter } from '../../core/events';
import { parseLogLine, type Logger } from '../../core/log';
import { forEachLine, stopChild } from '../../core/childProcess';
import { replaceNoSecret } from '../../core/contract/providers';
import { expectProtocol, type StatedProtocol } from '../../core/contract/adminProtocol';
import { listeningUrl, protocolVersion, renderUrl } from '../../core/contract/serveHandshake';
import type { AttachedServe } from './attachedServe';
import { parseWorkerException, parseWorkerStatus, type WorkerException, type WorkerStatus } from '../../core/contract/workerProblems';

/** What serve said about the user's worker: a build's outcome, or a handler that threw. */
export type WorkerReport = { readonly kind: 'status'; readonly status: WorkerStatus } | { readonly kind: 'exception'; readonly exception: WorkerException };

/**
 * The receiver's state. `attached`: the running serve is not this window's own (a terminal's, a
 * task's, another window's: attachedServe.ts); `note`: why it stopped, when that is news.
 */
export type ServeState =
  { kind: 'starting' } | { kind: 'running'; url: string; attached?: AttachedServe } | { kind: 'stopped'; note?: string } | { kind: 'failed'; message: string };

export interface ServeLaunch {
  readonly cli: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export class ServeProcess {
  private child: ChildProcess | undefined;
  private readonly changed = new Emitter<ServeState>();
  readonly onDidChangeState = this.changed.event;
  private readonly reported = new Emitter<WorkerReport>();
  /** Each build's outcome and each handler that threw, from serve's structured lines. */
  readonly onDidReportWorker = this.reported.event;
  private current: ServeState = { kind: 'stopped' };
  private stopping = false;
  /** The Browser Rendering emulator's base URL, once the server printed it. */
  renderUrl: string | undefined;

  constructor(private readonly logger: Logger) {}

  get state(): ServeState {
    return this.current;
  }

  private set(state: ServeState): void {
    this.current = state;
    this.changed.fire(state);
  }

  /** Starts the server; resolves with its URL, or rejects with what it printed before exiting. */
  start(launch: ServeLaunch): Promise<string> {
    if (this.child) throw new Error('the server is already running');
    this.stopping = false;
    this.renderUrl = undefined;
    this.set({ kind: 'starting' });
    // stdin stays an open pipe: `--exit-with-parent` makes the server stop when it closes.
    const child = spawn(process.execPath, [launch.cli, 'serve', '--exit-with-parent', ...launch.args], {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    let stderrTail = '';
    forEachLine(child.stderr!, (line) => {
      stderrTail = (stderrTail + line + '\n').slice(-2000);
      const parsed = parseLogLine(line);
      if (!parsed) return this.logger.info(line);
      const report = workerReport(parsed.message);
      // serve logs each in words as well; the structured line is for the Problems view and the toasts.
      if (report) return this.reported.fire(report);
      this.logger[parsed.level](inVsCode(parsed.message));
    });
    let stated: StatedProtocol;
    let refused: Error | undefined;
    return new Promise((resolve, reject) => {
      forEachLine(child.stdout!, (line) => {
        const url = listeningUrl(line);
        const render = renderUrl(line);
        const version = protocolVersion(line);
        if (render) this.renderUrl = render;
        else if (version !== undefined) stated = version;
        else if (url) {
          try {
            expectProtocol(
              `the hookbench serve this window started (${launch.cli})`,
              stated,
              'stopped. Reinstall or update the extension: its bundled serve is not its own version',
            );
          } catch (error) {
            refused = error as Error;
            this.set({ kind: 'failed', message: refused.message });
            reject(refused);
            void this.stop();
            return;
          }
          this.set({ kind: 'running', url });
          resolve(url);
        } else this.logger.info(line);
      });
      child.once('error', (error) => {
        this.child = undefined;
        this.set({ kind: 'failed', message: error.message });
        reject(error);
      });
      child.once('exit', (code, signal) => {
        this.child = undefined;
        const message = `the server exited with ${signal ?? `code ${code}`}${stderrTail ? `: ${lastLines(stderrTail)}` : ''}`;
        if (refused) this.set({ kind: 'failed', message: refused.message });
        else if (this.stopping || code === 0) this.set({ kind: 'stopped' });
        else this.set({ kind: 'failed', message });
        reject(new Error(message));
      });
    });
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.stopping = true;
    await stopChild(child, graceMs);
  }

  dispose(): void {
    this.child?.kill('SIGTERM');
    this.changed.dispose();
    this.reported.dispose();
  }
}

/** The serve process names environment variables; in VS Code the way to set a secret is a command. */
function inVsCode(message: string): string {
  return replaceNoSecret(message, (secretEnv) => `no secret configured (${secretEnv}: run Hookbench: Set Webhook Secret)`);
}

function workerReport(message: string): WorkerReport | undefined {
  const status = parseWorkerStatus(message);
  if (status) return { kind: 'status', status };
  const exception = parseWorkerException(message);
  return exception ? { kind: 'exception', exception } : undefined;
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ');
}
