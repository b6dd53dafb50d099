/** Commands on explorer items: open an event's payload or a delivery, delete an instance, refresh. */
import * as vscode from 'vscode';
import type { DisposableStore } from '../core/events';
import type { Logger } from '../core/log';
import type { DeliverySummary } from '../core/contract/deliveries';
import { registerCommand } from './commands';
import { prettyBody } from './deliveryDocument';
import { HTTP_LANGUAGE } from './documents';
import { deliveryUri, eventUri } from './documentUris';
import type { AgentNode } from './views/agentsTree';
import type { AttachedWorker, AttachedWorkers } from './views/attachedWorkers';
import type { ExplorerSession } from './views/explorerSession';

export function registerExplorerCommands(store: DisposableStore, logger: Logger, session: ExplorerSession, attached: AttachedWorkers): void {
  registerCommand(store, logger, 'hookbench.event.openPayload', async (node: unknown) => {
    const n = node as AgentNode;
    if (n?.kind !== 'event') return;
    // A deployed worker's event carries its payload (from getEvents); a local one opens as the delivery that stored it.
    if (typeof n.event.payload !== 'string') return openHttpDocument(eventUri(n.namespace, n.name, n.event));
    const doc = await vscode.workspace.openTextDocument({ language: 'json', content: prettyBody(n.event.payload) });
    await vscode.window.showTextDocument(doc, { preview: true });
  });

  registerCommand(store, logger, 'hookbench.event.copyPayload', async (node: unknown) => {
    const n = node as AgentNode;
    if (n?.kind !== 'event') return undefined;
    const payload = typeof n.event.payload === 'string' ? n.event.payload : await session.client?.payload(n.namespace, n.name, n.event.id);
    if (payload === undefined || payload === null) throw new Error(`the payload of ${n.event.id} is no longer stored`);
    await vscode.env.clipboard.writeText(payload);
    void vscode.window.showInformationMessage(`Copied the payload of ${n.event.id}.`);
    return payload;
  });

  // A delivery, or its id: the document reads it from the receiver.
  registerCommand(store, logger, 'hookbench.delivery.open', async (delivery: unknown) => {
    const id = typeof delivery === 'string' ? delivery : (delivery as DeliverySummary | undefined)?.id;
    if (!id) return;
    const known = typeof delivery === 'object' ? (delivery as DeliverySummary) : session.model.deliveries.find((d) => d.id === id);
    await openHttpDocument(deliveryUri(known ?? { id, eventType: null, entity: null, method: 'delivery', path: id, time: '', status: 0 }));
  });

  registerCommand(store, logger, 'hookbench.instance.delete', async (node: unknown) => {
    const n = node as AgentNode;
    if (n?.kind !== 'instance' || !session.client) return;
    const answer = await vscode.window.showWarningMessage(`Delete ${n.name} and all its state and events?`, { modal: true }, 'Delete');
    if (answer !== 'Delete') return;
    // The live feed's `deleted` message takes it out of the views.
    await session.client.deleteInstance(n.namespace, n.name);
  });

  // `confirmed` is for callers that already asked (tests, other extensions); menus pass the node only.
  registerCommand(store, logger, 'hookbench.instance.clearEvents', async (node: unknown, confirmed?: unknown) => {
    const n = node as AgentNode;
    if (n?.kind !== 'instance' || !session.client) return undefined;
    const answer =
      confirmed === true
        ? 'Clear Events'
        : await vscode.window.showWarningMessage(`Delete every stored event of ${n.name}? Its state stays as it is.`, { modal: true }, 'Clear Events');
    if (answer !== 'Clear Events') return undefined;
    // The live feed's `changed` message has the views read its events again.
    return session.client.clearEvents(n.namespace, n.name);
  });

  registerCommand(store, logger, 'hookbench.views.refresh', () => session.reload());

  registerCommand(store, logger, 'hookbench.worker.attach', async (args?: unknown) => {
    const given = (args ?? {}) as Partial<AttachedWorker>;
    const baseUrl =
      given.baseUrl ??
      (await vscode.window.showInputBox({
        title: 'Attach to Deployed Worker (1/3)',
        prompt: 'Base URL of the worker: deployed, or a local `wrangler dev` (http://127.0.0.1:8787)',
        placeHolder: 'https://my-worker.example.workers.dev',
        validateInput: (v) => (/^https?:\/\/[^/]+/.test(v) ? undefined : 'An http(s) URL'),
      }));
    if (!baseUrl) return;
    const agent =
      given.agent ??
      (await vscode.window.showInputBox({
        title: 'Attach to Deployed Worker (2/3)',
        prompt: 'Agent URL segment (/agents/<agent>/<name>)',
        value: 'webhook-agent',
      }));
    if (!agent) return;
    const names =
      given.names ??
      (
        await vscode.window.showInputBox({
          title: 'Attach to Deployed Worker (3/3)',
          prompt: 'Entity names to watch, comma-separated',
          placeHolder: 'acme-widgets, cus_123',
        })
      )
        ?.split(',')
        .map((n) => n.trim())
        .filter(Boolean);
    if (!names?.length) return;
    await attached.attach({ baseUrl: baseUrl.replace(/\/$/, ''), agent, names });
  });

  registerCommand(store, logger, 'hookbench.worker.detach', async (node?: unknown) => {
    const n = node as AgentNode | undefined;
    const baseUrl =
      n?.kind === 'attached'
        ? n.worker.baseUrl
        : await vscode.window.showQuickPick(
            attached.list().map((w) => w.baseUrl),
            { title: 'Detach' },
          );
    if (baseUrl) await attached.detach(baseUrl);
  });
}

async function openHttpDocument(uri: vscode.Uri): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, HTTP_LANGUAGE);
  await vscode.window.showTextDocument(doc, { preview: true });
}
