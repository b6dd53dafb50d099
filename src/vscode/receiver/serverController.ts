/**
 * Keeps the local receiver running for the workspace: builds the serve command line from the
 * settings (host, port, data folder, worker, retention), hands the provider secrets and a fresh
 * admin token over as environment (never as arguments, never in settings), restarts it when any
 * of those change, and shows its state in the status bar and the `hookbench.receiverRunning` key.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore, Emitter } from '../../core/events';
import type { Logger } from '../../core/log';
import { findWranglerConfig, readWranglerConfig, SECRETS_FILE_NAMES, secretsBeside, WRANGLER_CONFIG_NAMES } from '../../core/workerConfig/wranglerConfig';
import { UnsupportedConfigError } from '../../core/workerConfig/configErrors';
import type { Secrets } from '../secrets';
import { ServeProcess, type ServeLaunch, type ServeState } from './serveProcess';
import { ADMIN_TOKEN_ENV, DEFAULT_MEMORY_BUDGET_MIB, RENDER_TOKEN_ENV, SERVE_PROCESS_ENV } from '../../core/contract/serveEnvironment';
import { DEFAULT_RECEIVER_PORT } from '../../core/contract/webhookRoutes';
import { folderInUse, portInUse } from '../../core/contract/serveHandshake';
import { findHolding, findServeOf, type Holding } from '../../core/serveHolder';
import { listenerPid } from './portInUse';
import { Attachment, type AttachedServe } from './attachedServe';

/**
 * The data folder is held by a process this window may neither attach to nor start beside: a
 * serve proven stale (Take Over stops it, after asking), or one that proves nothing yet.
 */
export class DataFolderHeldError extends Error {
  override readonly name = 'DataFolderHeldError';
  constructor(
    readonly dataDir: string,
    readonly holding: Extract<Holding, { kind: 'stale' | 'unproven' }>,
  ) {
    super(heldMessage(dataDir, holding));
  }
}

/** Whether `holding` keeps this window from starting its own serve there (a live one is attached to). */
function held(holding: Holding): DataFolderHeldError['holding'] | undefined {
  return holding.kind === 'unproven' || (holding.kind === 'stale' && holding.stops !== undefined) ? holding : undefined;
}

function heldMessage(dataDir: string, holding: DataFolderHeldError['holding']): string {
  if (holding.kind === 'stale') return `pid ${holding.pid ?? '?'} holds the data folder ${dataDir} but is stale (${holding.reason}): Take Over stops it, after asking`;
  return `pid ${holding.lock.pid} holds the data folder ${dataDir} but did not prove it is a hookbench serve of it (${holding.reason}); nothing was stopped: Restart once it listens`;
}

/**
 * VS Code's private storage for this workspace (the global one without a folder): where an
 * untrusted workspace's data and fixtures go instead of its own `.hookbench/`.
 */
export function privateStorage(context: vscode.ExtensionContext): string {
  return (context.storageUri ?? context.globalStorageUri).fsPath;
}

const RESTART_ON = ['hookbench.receiver.host', 'hookbench.receiver.port', 'hookbench.receiver.retries', 'hookbench.receiver.retryScale', 'hookbench.receiver.memoryBudget', 'hookbench.dataDirectory', 'hookbench.worker', 'hookbench.retention', 'hookbench.render.port'];

export class ServerController implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly process: ServeProcess;
  private readonly status: vscode.StatusBarItem;
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
  /** The provider secrets the running receiver was given, to tell whether a change needs a restart. */
  private launchedSecrets: string | undefined;
  /** The worker flags the running receiver was started with, and the config they came from. */
  private launchedWorker: { flags: string; config: string | undefined } | undefined;
  /** Secrets for this session only, over the stored ones: `stripe listen`'s signing secret while it runs. */
  private readonly sessionSecrets = new Map<string, string>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
    private readonly secrets: Secrets,
  ) {
    this.process = new ServeProcess(logger);
    this.store.add(this.process);
    this.onDidReportWorker = this.process.onDidReportWorker;
    this.status = this.store.add(vscode.window.createStatusBarItem('hookbench.receiver', vscode.StatusBarAlignment.Left, 50));
    this.status.name = 'Hookbench Receiver';
    this.status.command = 'hookbench.receiver.showMenu';
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
    // A wrangler config added, edited or removed, or the secrets file beside it: serve reads them
    // at start only (its own watch rebuilds the sources), so the receiver restarts as wrangler dev does.
    const root = vscode.workspace.workspaceFolders?.[0];
    if (root) {
      const names = [...WRANGLER_CONFIG_NAMES, ...SECRETS_FILE_NAMES].join(',');
      const watcher = this.store.add(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, `**/{${names}}`)));
      const changed = (uri: vscode.Uri) => this.workerFileChanged(uri.fsPath);
      this.store.add(watcher.onDidCreate(changed));
      this.store.add(watcher.onDidChange(changed));
      this.store.add(watcher.onDidDelete(changed));
    }
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
    const holding = await findHolding(data);
    if (holding.kind === 'live') return this.attach(data, holding);
    const refused = held(holding);
    if (refused) return this.refuse(new DataFolderHeldError(data, refused));
    if (holding.kind === 'stale') this.logger.info(`serve.lock of ${data} names pid ${holding.pid ?? '?'}, which is not a hookbench serve of this folder: the lock is stale (${holding.reason}); nothing was stopped`);
    this.show(undefined);
    try {
      return await this.process.start(await this.launch());
    } catch (error) {
      const message = (error as Error).message;
      // A hookbench serve of another data folder listens where the workspace points: attach to it.
      const port = portInUse(message)?.port;
      const there = port === undefined ? undefined : await this.serveOnPort(port);
      if (there) return this.attach(there.dataDir, there.holding);
      // Another serve took the folder between the look and the start: look again, once.
      if (!folderInUse(message)) throw error;
      const again = await findHolding(data);
      if (again.kind === 'live') return this.attach(data, again);
      const refusedNow = held(again);
      if (!refusedNow) throw error;
      return this.refuse(new DataFolderHeldError(data, refusedNow));
    }
  }

  /** The live hookbench serve listening on `port`, when there is one of this user's. */
  private async serveOnPort(port: number): Promise<Awaited<ReturnType<typeof findServeOf>>> {
    const pid = await listenerPid(port);
    return pid === undefined ? undefined : findServeOf(pid);
  }

  private attach(data: string, holding: Extract<Holding, { kind: 'live' }>): string {
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
      return this.show({ kind: 'stopped', note: `detached from the hookbench serve of pid ${attachment.serve.pid}, ${attachment.serve.origin}, which keeps running` });
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
    if (JSON.stringify(await this.environment()) === this.launchedSecrets) return;
    await this.restartIfRunning('a webhook secret changed');
  }

  /**
   * Gives the receiver a secret for this session only (never stored), or takes it back
   * (undefined): restarts it when that changes what it runs with, and resolves once it listens.
   */
  async setSessionSecret(env: string, value: string | undefined): Promise<void> {
    if (value === undefined) this.sessionSecrets.delete(env);
    else this.sessionSecrets.set(env, value);
    await this.syncSecrets();
  }

  /** The secrets the receiver runs with: the stored ones, and this session's over them. */
  private async environment(): Promise<Record<string, string>> {
    return { ...(await this.secrets.asEnvironment()), ...Object.fromEntries(this.sessionSecrets) };
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
    const { config } = launched;
    const beside = config ? SECRETS_FILE_NAMES.map((name) => path.join(path.dirname(config), name)) : [];
    if (JSON.stringify(this.chooseWorker(folder, false).flags) !== launched.flags) {
      void this.restartIfRunning(`the workspace's worker changed (${shown})`);
    } else if (file === config || beside.includes(file)) {
      void this.restartIfRunning(`${shown} changed`);
    }
  }

  private restartIfRunning(reason: string): Promise<unknown> {
    if (this.attachment) {
      this.logger.info(`${reason}: the attached hookbench serve of pid ${this.attachment.serve.pid} keeps its own flags and secrets (Restart Receiver detaches and looks again)`);
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
    const worker = chosen.flags;
    this.launchedWorker = { flags: JSON.stringify(worker), config: chosen.config };
    if (!vscode.workspace.isTrusted) this.logger.info(`restricted mode: the workspace is not trusted, so its .hookbench folder and its Hookbench settings are not used; data is kept in ${data}`);
    const args = [
      '--host', settings.get<string>('receiver.host', '127.0.0.1'),
      '--port', String(settings.get<number>('receiver.port', DEFAULT_RECEIVER_PORT)),
      '--data', data,
      '--retention-count', String(settings.get<number>('retention.maxEvents', 100)),
      '--retention-days', String(settings.get<number>('retention.maxAgeDays', 30)),
      '--render-port', String(settings.get<number>('render.port', 8788)),
      '--memory-budget', String(settings.get<number>('receiver.memoryBudget', DEFAULT_MEMORY_BUDGET_MIB)),
      ...worker,
      ...settings.get<string[]>('security.allowedOrigins', []).flatMap((origin) => ['--allow-origin', origin]),
      ...(settings.get<boolean>('security.requireToken', false) ? ['--require-token'] : []),
      ...(settings.get<boolean>('receiver.retries', false) ? ['--retries', '--retry-scale', String(settings.get<number>('receiver.retryScale', 0.001))] : []),
    ];
    const secrets = await this.environment();
    this.launchedSecrets = JSON.stringify(secrets);
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
    const env = { ...SERVE_PROCESS_ENV, ...process.env, ...(await this.environment()) };
    return { cli: this.context.asAbsolutePath(path.join('dist', 'cli.js')), args: this.workerArgs(folder), env, cwd: folder ?? this.context.globalStorageUri.fsPath };
  }

  /**
   * The variables of the workspace worker's own secrets file (.dev.vars beside its config, as serve
   * and wrangler dev read it), or none: a webhook for that worker is signed with its secret.
   */
  workerSecrets(): Record<string, string> {
    const { config } = this.workspaceWorker(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
    return config ? secretsBeside(config) : {};
  }

  /**
   * The workspace's own agents worker when the folder is trusted and has one (a wrangler config
   * with Durable Object bindings, or `hookbench.worker.entry`); otherwise the built-in worker.
   */
  private workerArgs(folder: string | undefined): string[] {
    return this.chooseWorker(folder).flags;
  }

  /** serve's flags for the workspace's worker, and its config; a config passed over is logged when `log`. */
  private chooseWorker(folder: string | undefined, log = true): { flags: string[]; config?: string } {
    const { worker, config, ignored } = this.workspaceWorker(folder);
    if (ignored && log) this.logger.warn(ignored);
    return { flags: [...(config ? ['--config', config] : []), ...(worker ? ['--worker', worker] : [])], ...(config ? { config } : {}) };
  }

  /** The worker serve runs for `folder` and its config (neither: the built-in worker), and why a config was passed over. */
  private workspaceWorker(folder: string | undefined): { worker?: string; config?: string; ignored?: string } {
    if (!folder || !vscode.workspace.isTrusted) return {};
    const settings = vscode.workspace.getConfiguration('hookbench', vscode.Uri.file(folder));
    const entry = settings.get<string>('worker.entry', '');
    const configSetting = settings.get<string>('worker.config', '');
    const config = configSetting ? path.resolve(folder, configSetting) : findWranglerConfig(folder);
    if (entry) return { worker: path.resolve(folder, entry), ...(config ? { config } : {}) };
    if (!config || !fs.existsSync(config)) return {};
    try {
      const parsed = readWranglerConfig(config);
      if (parsed.main && parsed.durableObjects.length > 0) return { config, worker: parsed.main };
    } catch (error) {
      // A config that asks for what Hookbench does not emulate: serve reads it again and fails
      // at start with its one line, rather than the built-in worker running in its place.
      if (error instanceof UnsupportedConfigError) return { config };
      return { ignored: `ignoring ${config}: ${(error as Error).message}` };
    }
    return {};
  }

  private render(state: ServeState): void {
    void vscode.commands.executeCommand('setContext', 'hookbench.receiverRunning', state.kind === 'running');
    void vscode.commands.executeCommand('setContext', 'hookbench.receiverState', state.kind);
    this.status.backgroundColor = undefined;
    switch (state.kind) {
      case 'running': {
        const port = new URL(state.url).port;
        if (state.attached) {
          this.status.text = `$(plug) Hookbench :${port} · attached to pid ${state.attached.pid}`;
          this.status.tooltip = new vscode.MarkdownString(`Attached to the hookbench serve of pid ${state.attached.pid} ${state.attached.origin}, on \`${state.url}\`: its instances, deliveries and live feed.\n\nIt runs with its own flags and secrets. Stop Receiver detaches and leaves it running.`);
          break;
        }
        this.status.text = `$(radio-tower) Hookbench :${port}`;
        const restricted = vscode.workspace.isTrusted ? '' : '\n\nRestricted mode: this folder is not trusted, so the built-in worker runs, never the folder\'s own code.';
        this.status.tooltip = new vscode.MarkdownString(`Hookbench receiver on \`${state.url}\`\n\nPOST webhooks to \`${state.url}/webhooks/<provider>/<entity>\`${restricted}`);
        break;
      }
      case 'starting':
        this.status.text = '$(sync~spin) Hookbench';
        this.status.tooltip = 'Hookbench receiver is starting';
        break;
      case 'stopped':
        this.status.text = '$(circle-slash) Hookbench';
        this.status.tooltip = state.note ? `Hookbench: ${state.note}` : 'Hookbench receiver is stopped';
        break;
      case 'failed':
        this.status.text = '$(error) Hookbench';
        this.status.tooltip = `Hookbench receiver failed: ${state.message}`;
        this.status.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        break;
    }
    this.changed.fire(state);
  }

  dispose(): void {
    this.attachedGone.dispose();
    this.changed.dispose();
    this.store.dispose();
  }
}
