/** Commands of the receiver (start, stop, restart, copy URL, status menu) and of the secrets. */
import * as vscode from 'vscode';
import type { DisposableStore } from '../core/events';
import type { Logger } from '../core/log';
import { registerCommand, reportError } from './commands';
import { PROVIDER_SECRETS, type Secrets } from './secrets';
import { PROVIDERS } from '../core/contract/providers';
import { portInUse } from '../core/contract/serveHandshake';
import { webhookPath } from '../core/contract/webhookRoutes';
import { offerTakeOver } from './receiver/folderInUse';
import { offerPortChoices } from './receiver/portInUse';
import { DataFolderHeldError } from './receiver/dataFolderHolder';
import type { ServerController } from './receiver/serverController';

export function registerReceiverCommands(store: DisposableStore, logger: Logger, server: ServerController, secrets: Secrets): void {
  /** A start that failed: the ways out for a taken port or data folder, a short toast otherwise. */
  const failed = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    // Said once in the log; the notification offers the ways out.
    if (portInUse(message)) {
      logger.warn(message);
      void offerPortChoices(message, logger, start);
    } else if (error instanceof DataFolderHeldError) {
      logger.warn(message);
      void offerTakeOver(error, logger, start);
    } else reportError(logger, 'the receiver could not start', error);
  };
  const start = async (): Promise<string | undefined> => {
    try {
      const url = await server.start();
      logger.info(`receiver listening on ${url}`);
      return url;
    } catch (error) {
      failed(error);
      return undefined;
    }
  };
  server.onStartFailure = failed;
  store.add(
    server.onDidStopAttached(async (serve) => {
      const choice = await vscode.window.showInformationMessage(
        `Hookbench: the hookbench serve of pid ${serve.pid}, ${serve.origin}, stopped.`,
        'Start Receiver',
      );
      if (choice === 'Start Receiver') await start();
    }),
  );
  registerCommand(store, logger, 'hookbench.receiver.start', start);
  registerCommand(store, logger, 'hookbench.receiver.stop', () => server.stop());
  registerCommand(store, logger, 'hookbench.receiver.restart', async () => {
    await server.stop();
    return start();
  });

  registerCommand(store, logger, 'hookbench.receiver.copyUrl', async (provider?: unknown) => {
    const url = server.url ?? (await start());
    if (!url) return undefined;
    const chosen =
      typeof provider === 'string'
        ? provider
        : await vscode.window.showQuickPick(PROVIDERS, { title: 'Copy Webhook URL', placeHolder: 'Which provider will call it?' });
    if (!chosen) return undefined;
    // The address the user's machine reaches: in a remote window (SSH, WSL, a container,
    // Codespaces, code-server) the receiver listens beside the workspace, and VS Code forwards
    // its port and answers the forwarded origin; a local window gets the URL back unchanged. The
    // origin is what is forwarded (some hosts answer it without the path), the path goes after.
    const external = await vscode.env.asExternalUri(vscode.Uri.parse(`${url}/`));
    const webhookUrl = `${external.toString(true).replace(/\/+$/, '')}${webhookPath(chosen)}`;
    await vscode.env.clipboard.writeText(webhookUrl);
    void vscode.window.showInformationMessage(`Copied ${webhookUrl}`);
    return webhookUrl;
  });

  registerCommand(store, logger, 'hookbench.receiver.showMenu', async () => {
    const state = server.state;
    const running = state.kind === 'running';
    const attached = state.kind === 'running' ? state.attached : undefined;
    const items: (vscode.QuickPickItem & { command: string })[] = running
      ? [
          { label: '$(copy) Copy Webhook URL', command: 'hookbench.receiver.copyUrl' },
          { label: '$(debug-restart) Restart Receiver', command: 'hookbench.receiver.restart' },
          attached
            ? { label: `$(debug-disconnect) Detach from pid ${attached.pid}`, description: 'it keeps running', command: 'hookbench.receiver.stop' }
            : { label: '$(debug-stop) Stop Receiver', command: 'hookbench.receiver.stop' },
          { label: '$(key) Set Webhook Secret', command: 'hookbench.secret.set' },
          { label: '$(output) Show Log', command: 'hookbench.showLog' },
        ]
      : [
          { label: '$(play) Start Receiver', command: 'hookbench.receiver.start' },
          { label: '$(key) Set Webhook Secret', command: 'hookbench.secret.set' },
          { label: '$(output) Show Log', command: 'hookbench.showLog' },
        ];
    const picked = await vscode.window.showQuickPick(items, { title: running ? `Hookbench on ${server.url}` : 'Hookbench receiver' });
    if (picked) await vscode.commands.executeCommand(picked.command);
  });

  const pickProvider = async (title: string) =>
    (
      await vscode.window.showQuickPick(
        PROVIDER_SECRETS.map((p) => ({ label: p.title, description: p.env, env: p.env })),
        { title, placeHolder: 'Provider' },
      )
    )?.env;

  /**
   * An attached serve (a terminal's, another window's) was started with its own environment: a
   * secret set or cleared here never reaches it, and its webhooks would go on failing with "no
   * secret set" while nothing said why. Not awaited: the command is done.
   */
  const keepsItsOwn = (name: string, done: string): void => {
    const warning = server.secretKeptOut(`${name} is ${done}, but this`, '', `${name} in its environment`);
    if (warning) void vscode.window.showWarningMessage(warning);
  };

  registerCommand(store, logger, 'hookbench.secret.set', async (env?: unknown, value?: unknown) => {
    const name = typeof env === 'string' ? env : await pickProvider('Set Webhook Secret');
    if (!name) return;
    const secret =
      typeof value === 'string'
        ? value
        : await vscode.window.showInputBox({
            title: `Set ${name}`,
            prompt: 'Kept in VS Code secret storage and passed to the receiver as environment; never written to settings or logs.',
            password: true,
            ignoreFocusOut: true,
            validateInput: (v) => (v.trim() === '' ? 'The secret cannot be empty' : undefined),
          });
    if (!secret) return;
    await secrets.set(name, secret);
    logger.info(`${name} set (secret storage)`);
    // Whoever asked for the secret (a send waiting on it) continues once the receiver has it.
    await server.syncSecrets();
    keepsItsOwn(name, 'saved');
  });

  registerCommand(store, logger, 'hookbench.secret.clear', async (env?: unknown) => {
    const name = typeof env === 'string' ? env : await pickProvider('Clear Webhook Secret');
    if (!name) return;
    await secrets.clear(name);
    logger.info(`${name} cleared`);
    await server.syncSecrets();
    keepsItsOwn(name, 'cleared');
  });
}
