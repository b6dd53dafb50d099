/**
 * Expose Receiver (a public URL for the local receiver, with the provider this workspace chose),
 * Stop Exposing Receiver, Copy Public Webhook URL, Choose Expose Provider, Set ngrok Authtoken,
 * and the status bar item's menu. A provider that cannot start is one toast with its one line and
 * the way out (set the token, choose another provider, the log).
 */
import * as vscode from 'vscode';
import { EXPOSE_PROVIDERS, NGROK_TOKEN_ENV, SMEE_CHANNEL_ENV, type ExposeProvider } from '../../core/contract/expose';
import { PROVIDERS } from '../../core/contract/providers';
import type { DisposableStore } from '../../core/events';
import type { Logger } from '../../core/log';
import { registerCommand } from '../commands';
import type { Secrets } from '../secrets';
import { PROVIDER_LABELS, type ExposeController } from './exposeController';

const DETAILS: Record<ExposeProvider, string> = {
  smee: 'No account, nothing to install. Re-encodes JSON bodies: signatures over other bytes fail, and the delivery says so.',
  ngrok: "Raw bytes, signatures hold. Needs an ngrok account's authtoken.",
  cloudflared: 'Raw bytes, signatures hold. No account; needs cloudflared on the PATH.',
  stripe: "Your Stripe account's test events, signed with a per-session secret Hookbench passes to the receiver. Needs the Stripe CLI, logged in.",
};

async function pickProvider(current: ExposeProvider | undefined): Promise<ExposeProvider | undefined> {
  const picked = await vscode.window.showQuickPick(
    EXPOSE_PROVIDERS.map((provider) => ({
      label: PROVIDER_LABELS[provider],
      description: provider === current ? 'current' : undefined,
      detail: DETAILS[provider],
      provider,
    })),
    { title: 'Expose Receiver: where should the public URL come from?', placeHolder: 'Remembered for this workspace' },
  );
  return picked?.provider;
}

async function askNgrokToken(secrets: Secrets): Promise<string | undefined> {
  const token = await vscode.window.showInputBox({
    title: 'ngrok authtoken',
    prompt: 'From https://dashboard.ngrok.com/get-started/your-authtoken. Kept in VS Code secret storage; never in settings or logs.',
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'The authtoken cannot be empty' : undefined),
  });
  if (token) await secrets.set(NGROK_TOKEN_ENV, token.trim());
  return token?.trim();
}

export function registerExposeCommands(store: DisposableStore, logger: Logger, expose: ExposeController, secrets: Secrets): void {
  /** The environment the child needs: tokens from SecretStorage, over the extension host's own. */
  const environment = async (provider: ExposeProvider): Promise<Record<string, string> | undefined> => {
    const env: Record<string, string> = {};
    if (provider === 'ngrok') {
      const token = (await secrets.get(NGROK_TOKEN_ENV)) ?? process.env[NGROK_TOKEN_ENV] ?? (await askNgrokToken(secrets));
      if (!token) return undefined;
      env[NGROK_TOKEN_ENV] = token;
    }
    if (provider === 'smee') {
      const channel = await secrets.get(SMEE_CHANNEL_ENV);
      if (channel) env[SMEE_CHANNEL_ENV] = channel;
    }
    return env;
  };

  const copy = async (route?: string): Promise<string | undefined> => {
    const state = expose.state;
    if (state.kind !== 'on') {
      void vscode.window.showInformationMessage('The receiver has no public URL yet: run Hookbench: Expose Receiver.');
      return undefined;
    }
    if (state.provider === 'stripe') {
      void vscode.window.showInformationMessage(
        "stripe listen has no public URL: your Stripe account's test events come through it. Trigger one with: stripe trigger payment_intent.succeeded",
      );
      return undefined;
    }
    const chosen =
      state.provider === 'smee'
        ? 'github'
        : (route ?? (await vscode.window.showQuickPick(PROVIDERS, { title: 'Copy Public Webhook URL', placeHolder: 'Which provider will call it?' })));
    if (!chosen) return undefined;
    const url = expose.publicWebhookUrl(chosen)!;
    await vscode.env.clipboard.writeText(url);
    void vscode.window.showInformationMessage(`Copied ${url}${state.provider === 'smee' ? ' (GitHub: content type application/json)' : ''}`);
    return url;
  };

  const start = async (chosen?: unknown): Promise<string | undefined> => {
    const provider =
      (typeof chosen === 'string' && (EXPOSE_PROVIDERS as readonly string[]).includes(chosen) ? (chosen as ExposeProvider) : undefined) ??
      expose.provider ??
      (await pickProvider(undefined));
    if (!provider) return undefined;
    const env = await environment(provider);
    if (!env) return undefined;
    let forwarding;
    try {
      forwarding = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Hookbench: starting a public URL (${PROVIDER_LABELS[provider]})` },
        () => expose.start(provider, env),
      );
    } catch (error) {
      const message = (error as Error).message;
      logger.warn(`could not expose the receiver with ${provider}: ${message}`);
      await expose.rememberProvider(undefined);
      const actions =
        provider === 'ngrok' && /authtoken/i.test(message) ? ['Set ngrok Authtoken', 'Choose Another Provider'] : ['Choose Another Provider', 'Show Log'];
      const choice = await vscode.window.showErrorMessage(`Hookbench: ${message}`, ...actions);
      if (choice === 'Set ngrok Authtoken') await vscode.commands.executeCommand('hookbench.expose.setNgrokToken');
      if (choice === 'Choose Another Provider') await vscode.commands.executeCommand('hookbench.expose.chooseProvider');
      if (choice === 'Show Log') await vscode.commands.executeCommand('hookbench.showLog');
      return undefined;
    }
    if (!forwarding) return undefined;
    // Remembered once it worked: after a failure the next Expose Receiver asks again.
    await expose.rememberProvider(provider);
    // Attached to a serve started elsewhere, the secret does not reach it: a warning says so instead.
    const checks = expose.receiverKeepsItsOwnSecrets ? '' : '; the receiver now checks them with its signing secret';
    const shown = provider === 'stripe' ? `stripe listen is forwarding your test events${checks}.` : `Public URL ready: ${expose.publicWebhookUrl('github')}`;
    void vscode.window.showInformationMessage(`Hookbench: ${shown}`, ...(provider === 'stripe' ? [] : ['Copy Webhook URL'])).then((choice) => {
      if (choice) void copy();
    });
    return forwarding.publicUrl;
  };

  registerCommand(store, logger, 'hookbench.expose.start', start);
  registerCommand(store, logger, 'hookbench.expose.stop', () => expose.stop());
  registerCommand(store, logger, 'hookbench.expose.copyUrl', (route?: unknown) => copy(typeof route === 'string' ? route : undefined));
  registerCommand(store, logger, 'hookbench.expose.chooseProvider', async () => {
    const provider = await pickProvider(expose.provider);
    return provider ? start(provider) : undefined;
  });
  registerCommand(store, logger, 'hookbench.expose.setNgrokToken', async () => {
    if (!(await askNgrokToken(secrets))) return;
    logger.info(`${NGROK_TOKEN_ENV} set (secret storage)`);
    if (expose.state.kind === 'on' && expose.state.provider === 'ngrok') await start('ngrok');
  });
  registerCommand(store, logger, 'hookbench.expose.forgetChannel', async () => {
    await secrets.clear(SMEE_CHANNEL_ENV);
    void vscode.window.showInformationMessage('Forgot the smee channel: the next Expose Receiver with smee makes a new one.');
  });
  registerCommand(store, logger, 'hookbench.expose.showMenu', async () => {
    const on = expose.state.kind === 'on';
    const items: (vscode.QuickPickItem & { command: string })[] = [
      ...(on
        ? [
            { label: '$(copy) Copy Public Webhook URL', command: 'hookbench.expose.copyUrl' },
            { label: '$(debug-stop) Stop Exposing Receiver', command: 'hookbench.expose.stop' },
          ]
        : [{ label: '$(globe) Expose Receiver', command: 'hookbench.expose.start' }]),
      { label: '$(list-selection) Choose Expose Provider', command: 'hookbench.expose.chooseProvider' },
      { label: '$(output) Show Log', command: 'hookbench.showLog' },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: on && expose.state.kind === 'on' ? `Public URL: ${expose.state.publicUrl}` : 'Hookbench public URL',
    });
    if (picked) await vscode.commands.executeCommand(picked.command);
  });
}
