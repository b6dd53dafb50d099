/**
 * The receiver's public URL in VS Code: one `hookbench expose` child at a time, started for the
 * provider the workspace chose (remembered in workspaceState), shown in its own status bar item
 * and above the Deliveries view, stopped with the receiver. Tokens come from SecretStorage (the
 * smee channel URL too: whoever has it can read the deliveries) and go to the child as
 * environment. `stripe listen`'s signing secret goes to the receiver for this session only.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { NGROK_TOKEN_ENV, SMEE_CHANNEL_ENV, STRIPE_SOURCE, type ExposeProvider } from '../../core/contract/expose';
import { SECRET_ENV } from '../../core/contract/providers';
import { webhookPath } from '../../core/contract/webhookRoutes';
import { DisposableStore, Emitter } from '../../core/events';
import type { Logger } from '../../core/log';
import type { Secrets } from '../secrets';
import type { ServerController } from '../receiver/serverController';
import type { DeliveriesTree } from '../views/deliveriesTree';
import { ExposeProcess, type Forwarding } from './exposeProcess';

export type ExposeState =
  | { readonly kind: 'off' }
  | { readonly kind: 'starting'; readonly provider: ExposeProvider }
  | ({ readonly kind: 'on'; readonly provider: ExposeProvider; readonly to: string } & Forwarding);

const PROVIDER_KEY = 'hookbench.expose.provider';
/** The action on the warning that stripe listen's secret cannot reach an attached serve. */
const COPY_SECRET = 'Copy Signing Secret';
/** How long the receiver may stay down (a restart) before its public URL is stopped with it. */
const RECEIVER_GRACE_MS = 5000;

export const PROVIDER_LABELS: Record<ExposeProvider, string> = {
  smee: 'smee.io channel',
  ngrok: 'ngrok',
  cloudflared: 'Cloudflare quick tunnel',
  stripe: 'Stripe CLI (stripe listen)',
};

export class ExposeController implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly process: ExposeProcess;
  private readonly status: vscode.StatusBarItem;
  private current: ExposeState = { kind: 'off' };
  private readonly changed = new Emitter<ExposeState>();
  readonly onDidChange = this.changed.event;
  private receiverDown: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
    private readonly server: ServerController,
    private readonly secrets: Secrets,
    private readonly deliveries: { readonly view: vscode.TreeView<unknown>; readonly tree: DeliveriesTree },
  ) {
    this.process = new ExposeProcess(logger);
    this.store.add(this.process);
    this.status = this.store.add(vscode.window.createStatusBarItem('hookbench.expose', vscode.StatusBarAlignment.Left, 49));
    this.status.name = 'Hookbench Public URL';
    this.status.command = 'hookbench.expose.showMenu';
    this.store.add(this.process.onDidCreateChannel((channel) => void this.secrets.set(SMEE_CHANNEL_ENV, channel)));
    this.store.add(this.process.onDidGetSecret((secret) => void this.useStripeSecret(secret)));
    this.store.add(
      this.process.onDidMiss(
        (line) =>
          void vscode.window.showWarningMessage(
            `Hookbench: the smee.io connection dropped. ${line.replace(/^missed deliveries between (\S+) and (\S+): /, (_m, from: string, to: string) => `Deliveries sent between ${new Date(from).toLocaleTimeString()} and ${new Date(to).toLocaleTimeString()} did not arrive: `)}`,
          ),
      ),
    );
    this.store.add(this.process.onDidExit((reason) => void this.ended(reason)));
    this.store.add(this.server.onDidChangeState((state) => this.followReceiver(state.kind === 'running' ? state.url : undefined, state.kind)));
    this.render();
  }

  get state(): ExposeState {
    return this.current;
  }

  /** Whether the receiver is a serve attached to (started elsewhere), which keeps the secrets it was started with. */
  get receiverKeepsItsOwnSecrets(): boolean {
    return this.server.keepsItsOwnSecrets;
  }

  /** The provider this workspace chose, if it did. */
  get provider(): ExposeProvider | undefined {
    return this.context.workspaceState.get<ExposeProvider>(PROVIDER_KEY);
  }

  /** Remembers the provider for this workspace's next Expose Receiver; undefined forgets it (the next one asks). */
  async rememberProvider(provider: ExposeProvider | undefined): Promise<void> {
    await this.context.workspaceState.update(PROVIDER_KEY, provider);
  }

  /** Starts the public URL for `provider`; resolves with it, or undefined when it could not start (said in a toast). */
  async start(provider: ExposeProvider, env: Record<string, string>): Promise<Forwarding | undefined> {
    // Moving `stripe listen` keeps its secret (the new one prints the same); another provider drops it.
    const was = this.current;
    if (was.kind !== 'off') await this.process.stop();
    if (was.kind !== 'off' && was.provider === 'stripe' && provider !== 'stripe') await this.server.setSessionSecret(SECRET_ENV.stripe, undefined);
    const to = await this.server.ready();
    this.set({ kind: 'starting', provider });
    const cli = this.context.asAbsolutePath(path.join('dist', 'cli.js'));
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? this.context.globalStorageUri.fsPath;
    try {
      const smeeServer = vscode.workspace.getConfiguration('hookbench.expose').get<string>('smeeServer');
      const forwarding = await this.process.start({ cli, provider, to, env: { ...process.env, ...env }, cwd, ...(smeeServer ? { smeeServer } : {}) });
      this.set({ kind: 'on', provider, to, ...forwarding });
      this.logger.info(`public URL (${provider}): ${forwarding.publicUrl} → ${forwarding.target}`);
      return forwarding;
    } catch (error) {
      this.set({ kind: 'off' });
      throw error;
    }
  }

  async stop(): Promise<void> {
    const was = this.current;
    await this.process.stop();
    this.set({ kind: 'off' });
    if (was.kind !== 'off' && was.provider === 'stripe') await this.server.setSessionSecret(SECRET_ENV.stripe, undefined);
  }

  /** The URL a provider posts to: the channel for smee, `<tunnel>/webhooks/<route>` for a tunnel; none for stripe listen. */
  publicWebhookUrl(route: string): string | undefined {
    const state = this.current;
    if (state.kind !== 'on' || state.publicUrl === STRIPE_SOURCE) return undefined;
    return state.provider === 'smee' ? state.publicUrl : `${state.publicUrl}${webhookPath(route)}`;
  }

  /**
   * Gives the receiver stripe listen's signing secret for this session. An attached serve (a
   * terminal's, another window's) keeps the environment it was started with, so the events stripe
   * listen forwards would fail their signature check there with nothing said: the user is told,
   * and may copy the secret to start it again with. The secret is still kept for this session, for
   * this window's own receiver if it starts one.
   */
  private async useStripeSecret(secret: string): Promise<void> {
    const warning = this.server.secretKeptOut(
      "stripe listen's signing secret",
      ', so the Stripe events forwarded to it fail their signature check',
      `this secret as ${SECRET_ENV.stripe}`,
    );
    if (warning) {
      this.logger.warn(warning);
      void vscode.window.showWarningMessage(warning, COPY_SECRET).then((choice) => {
        if (choice === COPY_SECRET) void vscode.env.clipboard.writeText(secret);
      });
    } else {
      this.logger.info(`stripe listen gave this session's signing secret: restarting the receiver with it as ${SECRET_ENV.stripe} (not stored)`);
    }
    await this.server.setSessionSecret(SECRET_ENV.stripe, secret);
  }

  /** An exit nobody asked for (the stops above handle their own). */
  private async ended(reason: string | undefined): Promise<void> {
    if (reason === undefined) return;
    this.logger.warn(`the public URL stopped: ${reason}`);
    const was = this.current;
    this.set({ kind: 'off' });
    if (was.kind !== 'off' && was.provider === 'stripe') await this.server.setSessionSecret(SECRET_ENV.stripe, undefined);
    if (was.kind === 'on') {
      const choice = await vscode.window.showErrorMessage(`Hookbench: the public URL stopped: ${reason}`, 'Expose Again', 'Show Log');
      if (choice === 'Expose Again') void vscode.commands.executeCommand('hookbench.expose.start');
      if (choice === 'Show Log') void vscode.commands.executeCommand('hookbench.showLog');
    }
  }

  /**
   * Stops the public URL with the receiver (after a grace period: a restart passes through
   * "stopped"), and moves it when the receiver comes back on another address.
   */
  private followReceiver(url: string | undefined, kind: string): void {
    const state = this.current;
    if (state.kind === 'off') return;
    if (url) {
      clearTimeout(this.receiverDown);
      this.receiverDown = undefined;
      if (state.kind === 'on' && url !== state.to) {
        this.logger.info(`the receiver moved to ${url}: moving the public URL with it`);
        void this.restartOn(state.provider);
      }
      return;
    }
    if (kind === 'starting' || this.receiverDown) return;
    this.receiverDown = setTimeout(() => {
      this.receiverDown = undefined;
      if (this.server.state.kind === 'running' || this.server.state.kind === 'starting') return;
      this.logger.info('the receiver stopped: stopping its public URL');
      void this.stop();
    }, RECEIVER_GRACE_MS);
  }

  private async restartOn(provider: ExposeProvider): Promise<void> {
    const env: Record<string, string> = {};
    for (const name of [NGROK_TOKEN_ENV, SMEE_CHANNEL_ENV]) {
      const value = await this.secrets.get(name);
      if (value) env[name] = value;
    }
    await this.start(provider, env).catch((error: unknown) => this.logger.error(`could not move the public URL: ${(error as Error).message}`));
  }

  private set(state: ExposeState): void {
    this.current = state;
    this.render();
    this.changed.fire(state);
  }

  private render(): void {
    const state = this.current;
    void vscode.commands.executeCommand('setContext', 'hookbench.exposed', state.kind === 'on');
    void vscode.commands.executeCommand('setContext', 'hookbench.exposeState', state.kind);
    this.deliveries.tree.publicHosts.clear();
    switch (state.kind) {
      case 'off':
        this.status.hide();
        this.deliveries.view.description = undefined;
        break;
      case 'starting':
        this.status.text = `$(sync~spin) ${PROVIDER_LABELS[state.provider]}`;
        this.status.tooltip = `Hookbench: starting the public URL (${PROVIDER_LABELS[state.provider]})`;
        this.status.show();
        break;
      case 'on': {
        const shown = state.publicUrl === STRIPE_SOURCE ? 'stripe listen' : state.publicUrl.replace(/^https?:\/\//, '');
        if (state.provider === 'ngrok' || state.provider === 'cloudflared')
          this.deliveries.tree.publicHosts.set(new URL(state.publicUrl).hostname, state.provider);
        this.status.text = `$(globe) ${shown.length > 36 ? `${shown.slice(0, 35)}…` : shown}`;
        const md = new vscode.MarkdownString('', false);
        md.appendMarkdown('**Public URL** ')
          .appendText(`(${PROVIDER_LABELS[state.provider]})`)
          .appendMarkdown('\n\n')
          .appendText(`${state.publicUrl} → ${state.target}`)
          .appendMarkdown('\n\n')
          .appendText('Click to copy it, stop it or choose another provider.');
        this.status.tooltip = md;
        this.status.show();
        this.deliveries.view.description = state.provider === 'stripe' ? 'via stripe listen' : `public: ${shown}`;
        break;
      }
    }
    this.deliveries.tree.refresh();
  }

  dispose(): void {
    clearTimeout(this.receiverDown);
    this.changed.dispose();
    this.store.dispose();
  }
}
