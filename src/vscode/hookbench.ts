import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../core/events';
import { recording, tagged } from '../core/log';
import type { HookbenchApi, HookbenchReceiver } from './api';
import { registerCommand } from './commands';
import { registerReceiverCommands } from './receiverCommands';
import { registerRenderCommands } from './renderPreview/renderCommands';
import { Secrets } from './secrets';
import { privateStorage, ServerController } from './receiver/serverController';
import { startAgainOnSave, WorkerProblems } from './receiver/workerProblems';
import { registerDocuments } from './documents';
import { registerEditResend } from './editResend';
import { registerExplorerCommands } from './explorerCommands';
import { registerWebhookCommands } from './webhookCommands';
import { registerDraftCommands } from './drafts/draftCommands';
import { registerFixtureCommands } from './fixtures/fixtureCommands';
import { registerChaosCommands } from './chaos/chaosCommands';
import { Sender } from './sender';
import { trackWalkthrough } from './walkthroughKeys';
import { ExposeController } from './expose/exposeController';
import { registerExposeCommands } from './expose/exposeCommands';
import { AttachedWorkers } from './views/attachedWorkers';
import { ExplorerSession } from './views/explorerSession';
import { registerViews } from './views/registerViews';
import { registerInspector } from './inspector/registerInspector';

/** The receiver as the API shows it (src/vscode/api.ts): its state, address, tokens and data folder. */
function receiverApi(server: ServerController): HookbenchReceiver {
  return {
    get state() {
      return server.state;
    },
    onDidChangeState: server.onDidChangeState,
    get url() {
      return server.url;
    },
    ready: () => server.ready(),
    get adminToken() {
      return server.adminToken;
    },
    get renderUrl() {
      return server.renderUrl;
    },
    renderToken: server.renderToken,
    get dataFolder() {
      return server.dataFolder();
    },
  };
}

/**
 * Composes the extension: one log channel, the views, the receiver (a `hookbench serve` process)
 * with its status bar, the secrets, and the commands, all owned by a store that lives as long as
 * the extension.
 */
export function createHookbench(context: vscode.ExtensionContext, moduleStart?: number): HookbenchApi {
  const started = performance.now();
  const loadMs = moduleStart === undefined ? 0 : started - moduleStart;
  const bundleStartedAt = performance.timeOrigin + (moduleStart ?? started);
  const store = new DisposableStore();
  context.subscriptions.push(store);

  const channel = store.add(vscode.window.createOutputChannel('Hookbench', { log: true }));
  const log = recording(channel);
  const logger = tagged(log, 'extension');
  registerCommand(store, logger, 'hookbench.showLog', () => channel.show(true));

  const secrets = new Secrets(context.secrets);
  const server = store.add(new ServerController(context, tagged(log, 'receiver'), secrets));
  registerReceiverCommands(store, logger, server, secrets);
  store.add(new WorkerProblems(server.onDidReportWorker));
  store.add(startAgainOnSave(server.onDidReportWorker, server));

  const explorer = store.add(new ExplorerSession(server, tagged(log, 'explorer')));
  const attached = store.add(new AttachedWorkers(context.workspaceState));
  const { views, trees } = registerViews(store, explorer, attached, server, tagged(log, 'explorer'), context.workspaceState);
  registerDocuments(store, explorer);
  registerExplorerCommands(store, logger, explorer, attached);
  const storage = privateStorage(context);
  registerInspector(store, logger, explorer, context.workspaceState, storage);
  const sender = new Sender(logger, server, secrets);
  const drafts = registerDraftCommands(store, logger, sender, path.join(storage, 'drafts'));
  registerWebhookCommands(store, logger, sender, secrets, explorer, drafts, storage);
  registerEditResend(store, logger, explorer, drafts);
  registerFixtureCommands(store, logger, sender, explorer, views['hookbench.deliveries'], storage);
  registerChaosCommands(store, tagged(log, 'chaos'), server, sender, storage);
  registerRenderCommands(store, tagged(log, 'render'), context, server);
  const expose = store.add(
    new ExposeController(context, tagged(log, 'expose'), server, secrets, { view: views['hookbench.deliveries'], tree: trees.deliveries }),
  );
  registerExposeCommands(store, logger, expose, secrets);
  trackWalkthrough(store, {
    secrets,
    explorer,
    receiverRunning: (listener) => server.onDidChangeState((state) => listener(state.kind === 'running')),
    receiverRunningNow: server.state.kind === 'running',
    exposed: (listener) => expose.onDidChange((state) => listener(state.kind === 'on')),
  });

  const activationMs = performance.now() - started;
  logger.info(
    `Hookbench ${String(context.extension.packageJSON.version)} activated in ${activationMs.toFixed(1)} ms (bundle evaluated in ${loadMs.toFixed(1)} ms before)`,
  );
  if (server.autoStart) void vscode.commands.executeCommand('hookbench.receiver.start');
  else if (!vscode.workspace.isTrusted)
    logger.info('restricted mode: the receiver does not start on its own until the workspace is trusted (Start Receiver runs it on a private data folder)');
  const receiverReadyMs = new Promise<number>((resolve) => {
    if (server.url) return resolve(performance.now() - started);
    const sub = server.onDidChangeState((state) => {
      if (state.kind !== 'running') return;
      sub.dispose();
      resolve(performance.now() - started);
    });
  });
  return { receiver: receiverApi(server), recentLog: () => log.lines(), timings: { activationMs, loadMs, bundleStartedAt, receiverReadyMs } };
}
