/** Commands on explorer items: open an event's payload or a delivery, delete an instance, refresh. */
import * as vscode from 'vscode';
import type { DisposableStore } from '../core/events';
import type { Logger } from '../core/log';
import type { DeliverySummary } from './client/adminClient';
import { registerCommand } from './commands';
import { HookbenchDocuments } from './documents';
import type { AgentNode } from './views/agentsTree';
import type { ExplorerSession } from './views/explorerSession';

export function registerExplorerCommands(store: DisposableStore, logger: Logger, session: ExplorerSession): void {
  registerCommand(store, logger, 'hookbench.event.openPayload', async (node: unknown) => {
    const n = node as AgentNode;
    if (n?.kind !== 'event') return;
    const doc = await vscode.workspace.openTextDocument(HookbenchDocuments.eventUri(n.namespace, n.name, n.event.id));
    await vscode.languages.setTextDocumentLanguage(doc, 'json');
    await vscode.window.showTextDocument(doc, { preview: true });
  });

  registerCommand(store, logger, 'hookbench.delivery.open', async (delivery: unknown) => {
    const d = delivery as DeliverySummary;
    if (!d?.id) return;
    const doc = await vscode.workspace.openTextDocument(HookbenchDocuments.deliveryUri(d.id));
    await vscode.window.showTextDocument(doc, { preview: true });
  });

  registerCommand(store, logger, 'hookbench.instance.delete', async (node: unknown) => {
    const n = node as AgentNode;
    if (n?.kind !== 'instance' || !session.client) return;
    const answer = await vscode.window.showWarningMessage(`Delete ${n.name} and all its state and events?`, { modal: true }, 'Delete');
    if (answer !== 'Delete') return;
    await session.client.deleteInstance(n.namespace, n.name);
    session.schedule();
  });

  registerCommand(store, logger, 'hookbench.views.refresh', () => session.schedule());
}
