/**
 * Keeps the local receiver running for the workspace: builds the serve command line from the
 * settings (host, port, data folder, worker, retention), hands the provider secrets and a fresh
 * admin token over as environment (never as arguments, never in settings), restarts it when any
 * of those change, and shows its state in the status bar and the `hookbench.receiverRunning` key.
 * Each job has its part: settings → flags (serveFlags.ts), the secrets (serveSecrets.ts), attach or
 * launch (dataFolderHolder.ts), the worker's files (workerFiles.ts), the status bar
 * (receiverStatus.ts); this class keeps the session's state and composes them.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore, Emitter } from '../../core/events';
import type { Logger } from '../../core/log';
import { secretsBeside } from '../../core/workerConfig/wranglerConfig';
import type { Secrets } from '../secrets';
import { ServeProcess, type ServeLaunch, type ServeState } from './serveProcess';
import { ADMIN_TOKEN_ENV, RENDER_TOKEN_ENV, SERVE_PROCESS_ENV } from '../../core/contract/serveEnvironment';
import { Attachment, type AttachedServe } from './attachedServe';
import { DataFolderHeldError, liveHolder, liveServeAfter, type LiveHolding } from './dataFolderHolder';
import { ReceiverStatus } from './receiverStatus';
import { RESTART_ON, serveArgs, workerFlags, workspaceWorker } from './serveFlags';
import { ServeSecrets } from './serveSecrets';
import { restartReason, watchWorkerFiles, type LaunchedWorker } from './workerFiles';

/**
 * VS Code's private storage for this workspace (the global one without a folder): where an
 * untrusted workspace's data and fixtures go instead of its own `.hookbench/`.
 */
export function privateStorage(context: vscode.ExtensionContext): string {
  return (context.storageUri ?? context.globalStorageUri).fsPath;
}

export class ServerController implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly process: ServeProcess;
  private readonly status: ReceiverStatus;
  private readonly changed = new Emitter<ServeState>();
  readonly onDidChangeState = this.changed.event;
  /** Each build's outcome and each handler that threw, as the running serve reports them. */
  readonly onDidReportWorker: ServeProcess['onDidReportWorker'];
  /** A fresh token per session for this window's own serve: its admin API is the extension's alone. */
  private readonly sessionToken = randomBytes(24).toString('hex');
  /** The serve of a terminal, a task or another window this window's views are attached to. */
  private attachment: Attachment | undefined;
  /** The state this controller set over its process's: attached, refused, or what became of an attached serve. */
  private own: ServeState | undefined;
  private readonly attachedGone = new Emitter<AttachedServe>();
  /** The serve attached to stopped (its terminal's Ctrl+C): told once, with Start Receiver to offer. */
  readonly onDidStopAttached = this.attachedGone.event;
  /** The local render emulator's Bearer token, also fresh per session. */
  readonly renderToken = randomBytes(24).toString('hex');
  private pending: Promise<string> | undefined;
  private restarting: Promise<unknown> | undefined;
  /** Told when a restart this controller made on its own (settings, secrets, trust) fails to start. */
  onStartFailure: ((error: unknown) => void) | undefined;
  /** The provider secrets: stored, this session's, and what the running receiver was given. */
  private readonly serveSecrets: ServeSecrets;
  /** The worker flags the running receiver was started with, and the config they came from. */
  private launchedWorker: LaunchedWorker | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
    private readonly secrets: Secrets,
  ) {
    this.process = new ServeProcess(logger);
    this.store.add(this.process);
    this.serveSecrets = new ServeSecrets(secrets);
    this.onDidReportWorker = this.process.onDidReportWorker;
    this.status = this.store.add(new ReceiverStatus());
    this.store.add(this.process.onDidChangeState((state) => (this.own ? undefined : this.render(state))));
    this.render(this.process.state);
    this.store.add({ dispose: () => this.attachment?.dispose() });
    this.status.show();
    this.store.add(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (RESTART_ON.some((section) => event.affectsConfiguration(section))) void this.restartIfRunning('settings changed');
      }),
    );
    this.store.add(this.secrets.onDidChange(() => void this.syncSecrets()));
    const root = vscode.workspace.workspaceFolders?.[0];
    if (root) watchWorkerFiles(this.store, root, (file) => this.workerFileChanged(file));
    this.store.add(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        if (this.process.state.kind === 'running' || this.process.state.kind === 'starting') void this.restartIfRunning('the workspace is trusted now');
        else if (this.autoStart) void this.start().catch(() => undefined);
      }),
    );
  }

  /**
   * Whether the receiver starts with the window: never in an untrusted workspace, whose committed
   * `.hookbench/` or settings must not be acted on before the user trusts it.
   */
  get autoStart(): boolean {
    return vscode.workspace.isTrusted && vscode.workspace.getConfiguration('hookbench').get<boolean>('receiver.autoStart', true);
  }

  /**
   * The data folder. In a trusted workspace, `hookbench.dataDirectory` (default `.hookbench`) in
   * the folder; in an untrusted one, VS Code's private storage for this workspace, so a committed
   * `.hookbench/` is never opened, and the workspace's settings are not read.
   */
  dataFolder(): string {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!folder || !vscode.workspace.isTrusted) return path.join(privateStorage(this.context), 'data');
    return path.resolve(folder, vscode.workspace.getConfiguration('hookbench').get<string>('dataDirectory', '.hookbench'));
  }

  get state(): ServeState {
    return this.own ?? this.process.state;
  }

  get url(): string | undefined {
    const state = this.state;
    return state.kind === 'running' ? state.url : undefined;
  }

  /** The admin API's token: this session's, or the attached serve's. */
  get adminToken(): string {
    return this.attachment?.token ?? this.sessionToken;
  }

  /** Whether the receiver is a serve attached to (a terminal's, another window's), which keeps the secrets it was started with. */
  get keepsItsOwnSecrets(): boolean {
    return this.attachment !== undefined;
  }

  /**
   * The warning for a secret given in this window (Set or Clear Webhook Secret, stripe listen's
   * signing secret) while attached to a serve started elsewhere: it keeps the environment it was
   * started with, so the secret never reaches it. Undefined for this window's own receiver, which
   * is restarted with the secret instead.
   */
  secretKeptOut(subject: string, consequence: string, remedy: string): string | undefined {
    const attachment = this.attachment;
    if (!attachment) return undefined;
    const { serve, url } = attachment;
    return `${subject} will not reach the attached receiver on :${new URL(url).port} (the hookbench serve of pid ${serve.pid} ${serve.origin}): it keeps the secrets it was started with${consequence}. Start it again with ${remedy}, or stop it and start this window's receiver.`;
  }

  /** The local Browser Rendering emulator's `…/client/v4` URL, when this window's own serve runs it. */
  get renderUrl(): string | undefined {
    return this.url && !this.attachment ? this.process.renderUrl : undefined;
  }

  /**
   * Starts the receiver (or returns the start in progress); resolves with its URL. A live serve
   * that already holds the data folder is attached to instead; throws DataFolderHeldError for a
   * holder that is neither live nor free.
   */
  start(): Promise<string> {
    if (this.url) return Promise.resolve(this.url);
    this.pending ??= this.attachOrLaunch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async attachOrLaunch(): Promise<string> {
    const data = this.dataFolder();
    const live = await liveHolder(data, this.logger).catch((error: unknown) => this.refuseHeld(error));
    if (live) return this.attach(data, live);
    this.show(undefined);
    try {
      return await this.process.start(await this.launch());
    } catch (error) {
      const there = await liveServeAfter(error, data).catch((reason: unknown) => this.refuseHeld(reason));
      return this.attach(there.dataDir, there.holding);
    }
  }

  /** Refuses to start when `error` says the folder is held; throws it as it is otherwise. */
  private refuseHeld(error: unknown): never {
    if (error instanceof DataFolderHeldError) return this.refuse(error);
    throw error;
  }

  private attach(data: string, holding: LiveHolding): string {
    let attachment: Attachment;
    try {
      attachment = Attachment.open(data, holding.lock, holding.origin, () => this.attachedStopped(attachment));
    } catch (error) {
      return this.refuse(error as Error);
    }
    this.attachment = attachment;
    const { serve, url } = attachment;
    this.logger.info(`the hookbench serve of pid ${serve.pid}, ${serve.origin}, holds ${data}: attached to it on ${url} instead of starting this window's own`);
    this.show({ kind: 'running', url, attached: serve });
    return url;
  }

  private attachedStopped(attachment: Attachment): void {
    if (this.attachment !== attachment) return;
    this.attachment = undefined;
    const note = `the hookbench serve of pid ${attachment.serve.pid}, ${attachment.serve.origin}, stopped`;
    this.logger.info(`${note}: Start Receiver starts this window's own`);
    this.show({ kind: 'stopped', note });
    this.attachedGone.fire(attachment.serve);
  }

  private refuse(error: Error): never {
    this.show({ kind: 'failed', message: error.message });
    throw error;
  }

  /** Shows `state` over the process's (undefined: the process's own again). */
  private show(state: ServeState | undefined): void {
    this.own = state;
    this.render(this.state);
  }

  /** Stops this window's serve; an attached one is only detached from, never stopped. */
  async stop(): Promise<void> {
    await this.pending?.catch(() => undefined);
    const attachment = this.attachment;
    if (attachment) {
      this.attachment = undefined;
      attachment.dispose();
      this.logger.info(`detached from the hookbench serve of pid ${attachment.serve.pid}, which keeps running`);
      return this.show({
        kind: 'stopped',
        note: `detached from the hookbench serve of pid ${attachment.serve.pid}, ${attachment.serve.origin}, which keeps running`,
      });
    }
    if (this.own) this.show(undefined);
    await this.process.stop();
  }

  async restart(): Promise<string> {
    await this.stop();
    return this.start();
  }

  /**
   * Restarts the running receiver when the stored secrets differ from the ones it was started
   * with; resolves once it listens again (or at once when nothing changed). Setting a secret and
   * the storage's change event both call it: the second finds nothing to do.
   */
  async syncSecrets(): Promise<void> {
    // A start in progress may have read the secrets before the change: wait for it, then compare.
    await this.pending?.catch(() => undefined);
    if (this.attachment || (this.process.state.kind !== 'running' && this.process.state.kind !== 'starting')) return;
    if (!(await this.serveSecrets.changedSinceLaunch())) return;
    await this.restartIfRunning('a webhook secret changed');
  }

  /**
   * Gives the receiver a secret for this session only (never stored), or takes it back
   * (undefined): restarts it when that changes what it runs with, and resolves once it listens.
   */
  async setSessionSecret(env: string, value: string | undefined): Promise<void> {
    this.serveSecrets.setSession(env, value);
    await this.syncSecrets();
  }

  /** The receiver's URL once it is ready: after a restart in progress, starting it when stopped. */
  async ready(): Promise<string> {
    await this.restarting;
    return this.url ?? this.start();
  }

  /**
   * Restarts the running receiver when `file` changes which worker it should run (a config
   * added to or removed from the workspace), or is the config it runs or the secrets beside it.
   */
  private workerFileChanged(file: string): void {
    const launched = this.launchedWorker;
    if (!launched || this.attachment) return;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const shown = folder ? path.relative(folder, file) : file;
    const reason = restartReason(file, launched, JSON.stringify(this.chooseWorker(folder, false).flags), shown);
    if (reason) void this.restartIfRunning(reason);
  }

  private restartIfRunning(reason: string): Promise<unknown> {
    if (this.attachment) {
      this.logger.info(
        `${reason}: the attached hookbench serve of pid ${this.attachment.serve.pid} keeps its own flags and secrets (Restart Receiver detaches and looks again)`,
      );
      return Promise.resolve();
    }
    if (this.process.state.kind !== 'running' && this.process.state.kind !== 'starting') return Promise.resolve();
    this.restarting ??= (async () => {
      this.logger.info(`restarting the receiver: ${reason}`);
      await this.restart().catch((error: unknown) => this.onStartFailure?.(error));
    })().finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  private async launch(): Promise<ServeLaunch> {
    const settings = vscode.workspace.getConfiguration('hookbench');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const base = folder ?? this.context.globalStorageUri.fsPath;
    const data = this.dataFolder();
    const chosen = this.chooseWorker(folder);
    this.launchedWorker = { flags: JSON.stringify(chosen.flags), config: chosen.config };
    if (!vscode.workspace.isTrusted)
      this.logger.info(
        `restricted mode: the workspace is not trusted, so its .hookbench folder and its Hookbench settings are not used; data is kept in ${data}`,
      );
    const args = serveArgs(settings, data, chosen.flags);
    const secrets = await this.serveSecrets.forLaunch();
    const env = { ...SERVE_PROCESS_ENV, ...process.env, ...secrets, [ADMIN_TOKEN_ENV]: this.adminToken, [RENDER_TOKEN_ENV]: this.renderToken };
    return { cli: this.context.asAbsolutePath(path.join('dist', 'cli.js')), args, env, cwd: base };
  }

  /**
   * How a one-off CLI command (`hookbench chaos`) runs the workspace's worker as the receiver
   * does: the same CLI and Node, the same worker flags, the same secrets as environment, but no
   * admin or render token (it opens no port of the session's).
   */
  async workerLaunch(): Promise<ServeLaunch> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const env = { ...SERVE_PROCESS_ENV, ...process.env, ...(await this.serveSecrets.environment()) };
    return {
      cli: this.context.asAbsolutePath(path.join('dist', 'cli.js')),
      args: this.chooseWorker(folder).flags,
      env,
      cwd: folder ?? this.context.globalStorageUri.fsPath,
    };
  }

  /**
   * The variables of the workspace worker's own secrets file (.dev.vars beside its config, as serve
   * and wrangler dev read it), or none: a webhook for that worker is signed with its secret.
   */
  workerSecrets(): Record<string, string> {
    const { config } = this.workspaceWorker(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
    return config ? secretsBeside(config) : {};
  }

  /** serve's flags for the workspace's worker, and its config; a config passed over is logged when `log`. */
  private chooseWorker(folder: string | undefined, log = true): { flags: string[]; config?: string } {
    const chosen = this.workspaceWorker(folder);
    if (chosen.ignored && log) this.logger.warn(chosen.ignored);
    return workerFlags(chosen);
  }

  private workspaceWorker(folder: string | undefined) {
    return workspaceWorker(folder, vscode.workspace.isTrusted, () => vscode.workspace.getConfiguration('hookbench', vscode.Uri.file(folder!)));
  }

  private render(state: ServeState): void {
    this.status.render(state);
    this.changed.fire(state);
  }

  dispose(): void {
    this.attachedGone.dispose();
    this.changed.dispose();
    this.store.dispose();
  }
}
