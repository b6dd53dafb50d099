/**
 * One `hookbench expose <provider>` child process, run with the extension host's own Node like the
 * receiver: tokens go in as environment (never arguments), its standard output is read for the
 * lines of src/core/contract/expose.ts, its log lines go to the Hookbench log, and the signing
 * secret line is handed over without ever being logged. Nothing here imports `vscode`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Emitter } from '../../core/events';
import {
  exposeFailure,
  FORWARDING_LINE,
  MISSED_LINE,
  NEW_CHANNEL_LINE,
  repeatsSigningSecret,
  SIGNING_SECRET_LINE,
  type ExposeProvider,
} from '../../core/contract/expose';
import { parseLogLine, type Logger } from '../../core/log';
import { forEachLine, stopChild } from '../../core/childProcess';

export interface ExposeLaunch {
  readonly cli: string;
  readonly provider: ExposeProvider;
  /** The receiver's base URL. */
  readonly to: string;
  /** NGROK_AUTHTOKEN, HOOKBENCH_SMEE_CHANNEL and the like, over the extension host's environment. */
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Where smee makes a channel when it has none (`--smee-server`). */
  readonly smeeServer?: string;
}

export interface Forwarding {
  readonly publicUrl: string;
  readonly target: string;
}

export class ExposeProcess {
  private child: ChildProcess | undefined;
  private stopping = false;
  private readonly secret = new Emitter<string>();
  /** `stripe listen`'s signing secret for this session. */
  readonly onDidGetSecret = this.secret.event;
  private readonly channel = new Emitter<string>();
  /** A smee channel made for this session, to keep for the next. */
  readonly onDidCreateChannel = this.channel.event;
  private readonly missed = new Emitter<string>();
  /** The relay dropped: the line says what was missed and how to redeliver. */
  readonly onDidMiss = this.missed.event;
  private readonly exited = new Emitter<string | undefined>();
  /** The process ended: with the reason when it was not asked to. */
  readonly onDidExit = this.exited.event;

  constructor(private readonly logger: Logger) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts the process; resolves once it prints its forwarding line, rejects with the line it printed instead. */
  start(launch: ExposeLaunch): Promise<Forwarding> {
    if (this.child) throw new Error('a public URL is already being served');
    this.stopping = false;
    const child = spawn(
      process.execPath,
      [
        launch.cli,
        'expose',
        launch.provider,
        '--to',
        launch.to,
        ...(launch.provider === 'smee' && launch.smeeServer ? ['--smee-server', launch.smeeServer] : []),
        '--exit-with-parent',
      ],
      { cwd: launch.cwd, env: launch.env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.child = child;
    let failure = '';
    forEachLine(child.stderr!, (line) => {
      const parsed = parseLogLine(line);
      if (parsed) return this.logger[parsed.level](parsed.message);
      // Not a log line: the one line that says why it could not start (logged by whoever shows it).
      failure = exposeFailure(line);
      this.logger.debug(line);
    });
    return new Promise((resolve, reject) => {
      forEachLine(child.stdout!, (line) => {
        const secret = SIGNING_SECRET_LINE.exec(line);
        if (secret) return this.secret.fire(secret[1]!);
        if (repeatsSigningSecret(line)) return; // the CLI's advice repeats the secret
        const forwarding = FORWARDING_LINE.exec(line);
        if (forwarding) {
          this.logger.info(line);
          return resolve({ publicUrl: forwarding[1]!, target: forwarding[2]! });
        }
        const channel = NEW_CHANNEL_LINE.exec(line);
        if (channel) this.channel.fire(channel[1]!);
        if (MISSED_LINE.test(line)) this.missed.fire(line);
        this.logger.info(line);
      });
      child.once('error', (error) => {
        this.child = undefined;
        reject(error);
      });
      // 'close': the line that says why has been read by then.
      child.once('close', (code, signal) => {
        this.child = undefined;
        const reason = this.stopping ? undefined : failure || `hookbench expose ${launch.provider} exited with ${signal ?? `code ${code}`}`;
        reject(new Error(reason ?? 'stopped'));
        this.exited.fire(reason);
      });
    });
  }

  /** SIGTERM (it stops its tunnel program and exits), then SIGKILL after `graceMs`. */
  async stop(graceMs = 8000): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.stopping = true;
    await stopChild(child, graceMs);
  }

  dispose(): void {
    this.child?.kill('SIGTERM');
    for (const emitter of [this.secret, this.channel, this.missed, this.exited]) emitter.dispose();
  }
}
