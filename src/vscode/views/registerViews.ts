import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import type { Logger } from '../../core/log';
import { agentRowAction, AgentsTree, type AgentNode } from './agentsTree';
import { bindingRowAction, isBindingsMore, type BindingNode } from './bindingNodes';
import { BindingsTree } from './bindingsTree';
import { DeliveriesTree } from './deliveriesTree';
import { FILTER_KEYS, parseDeliveryFilter } from './deliveryFilter';
import { registerCommand } from '../commands';
import { isMore, SHOW_MORE_COMMAND, SHOW_MORE_LISTED_COMMAND } from './listTree';
import type { AttachedWorkers } from './attachedWorkers';
import type { ExplorerSession } from './explorerSession';
import { registerKvValues } from './kvValues';
import { OutboundTree } from './outboundTree';
import { registerRowCommand } from './rowCommand';
import { folderInUse, portInUse } from '../../core/contract/serveHandshake';
import type { ServeState } from '../receiver/serveProcess';
import type { ServerController } from '../receiver/serverController';

/** The views of the Hookbench activity-bar container, as declared in `package.json`. */
export const VIEW_IDS = ['hookbench.agents', 'hookbench.bindings', 'hookbench.deliveries', 'hookbench.outbound'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export interface Views {
  readonly trees: { readonly agents: AgentsTree; readonly bindings: BindingsTree; readonly deliveries: DeliveriesTree; readonly outbound: OutboundTree };
  readonly views: Readonly<Record<ViewId, vscode.TreeView<unknown>>>;
}

/** The line above a view whose receiver is not running: what the items are, and why. */
export function stateMessage(state: ServeState): string | undefined {
  switch (state.kind) {
    case 'running':
      if (!state.attached) return undefined;
      return `Attached to the hookbench serve of pid ${state.attached.pid} ${state.attached.origin}. Stop detaches; it keeps running.`;
    case 'starting':
      return 'The receiver is starting: showing what was last known.';
    case 'stopped':
      if (state.note) return `${state.note[0]!.toUpperCase()}${state.note.slice(1)}: showing what was last known. Start the receiver from the title bar.`;
      return 'The receiver is stopped: showing what was last known. Start it from the title bar.';
    case 'failed': {
      // The two failures with a way out in VS Code say that way, not the CLI's flags.
      const folder = folderInUse(state.message);
      if (folder) return `Another hookbench serve (pid ${folder.pid}) took this data folder as this one started. Restart attaches to it.`;
      const port = portInUse(state.message);
      if (port) return `Port ${port.port} is in use by another program. Use Another Port from the notification, or set hookbench.receiver.port.`;
      return `The receiver could not start: ${firstWords(state.message.replace(/^the server exited with code \d+: (hookbench: )?/, ''), 140)} Show Log says why.`;
    }
  }
}

/** At most `max` characters of the first line, cut at a word and marked when cut. */
function firstWords(text: string, max: number): string {
  const line = text.split('\n')[0]!.trim();
  if (line.length <= max) return line.endsWith('.') ? line : `${line}.`;
  return `${line.slice(0, line.lastIndexOf(' ', max))}…`;
}

export function registerViews(
  store: DisposableStore,
  session: ExplorerSession,
  attached: AttachedWorkers,
  server: ServerController,
  logger: Logger,
  workspaceState: vscode.Memento,
): Views {
  const trees = {
    agents: new AgentsTree(session, attached),
    bindings: new BindingsTree(session, (message) => logger.warn(message)),
    deliveries: new DeliveriesTree(session),
    outbound: new OutboundTree(session),
  };
  const agents = store.add(vscode.window.createTreeView<AgentNode>('hookbench.agents', { treeDataProvider: trees.agents, showCollapseAll: true }));
  const bindings = store.add(vscode.window.createTreeView<BindingNode>('hookbench.bindings', { treeDataProvider: trees.bindings, showCollapseAll: true }));
  registerKvValues(store, logger, () => session.client);
  const deliveries = store.add(vscode.window.createTreeView('hookbench.deliveries', { treeDataProvider: trees.deliveries, canSelectMany: true }));
  const outbound = store.add(vscode.window.createTreeView('hookbench.outbound', { treeDataProvider: trees.outbound }));
  // An expanded instance is read over its agent's channel until it is collapsed.
  store.add(agents.onDidExpandElement(({ element }) => trees.agents.expanded(element)));
  store.add(agents.onDidCollapseElement(({ element }) => trees.agents.collapsed(element)));
  store.add(
    vscode.commands.registerCommand(SHOW_MORE_COMMAND, (node: unknown) => {
      if (isMore(node)) return trees.deliveries.showMore();
      if (isBindingsMore(node)) return trees.bindings.showMore(node);
      return trees.agents.showMore(node as AgentNode);
    }),
  );
  registerRowCommand(store, logger, 'agents', agents, agentRowAction);
  registerRowCommand(store, logger, 'bindings', bindings, bindingRowAction);
  registerDeliveryFilter(store, logger, trees.deliveries, deliveries, workspaceState);
  store.add(vscode.commands.registerCommand(SHOW_MORE_LISTED_COMMAND, () => trees.deliveries.showMore()));
  const showState = (state: ServeState) => {
    const message = stateMessage(state);
    // Which serve the views show is said once, above the first; a receiver that is not running, in each.
    agents.message = message;
    for (const view of [bindings, deliveries, outbound]) view.message = state.kind === 'running' ? undefined : message;
  };
  showState(server.state);
  store.add(server.onDidChangeState(showState));
  // "12 s ago" must not stay "12 s ago": redraw visible views every 30 s when nothing else did.
  const fresh = setInterval(() => {
    if (agents.visible || deliveries.visible || outbound.visible) session.schedule();
  }, 30_000);
  store.add({ dispose: () => clearInterval(fresh) });
  return {
    trees,
    views: { 'hookbench.agents': agents, 'hookbench.bindings': bindings, 'hookbench.deliveries': deliveries, 'hookbench.outbound': outbound } as Record<
      ViewId,
      vscode.TreeView<unknown>
    >,
  };
}

/** Where the Deliveries view's filter and last Clear are kept across a reload (workspace state). */
const DELIVERIES_VIEW_KEY = 'hookbench.deliveries.view';

/**
 * Filter, Clear Filter and Clear of the Deliveries view; its title says "filtered: …" while one
 * holds. Both are kept in the workspace's state and come back after a reload.
 */
function registerDeliveryFilter(
  store: DisposableStore,
  logger: Logger,
  tree: DeliveriesTree,
  view: vscode.TreeView<unknown>,
  workspaceState: vscode.Memento,
): void {
  const show = () => {
    view.description = tree.describe();
    void vscode.commands.executeCommand('setContext', 'hookbench.deliveries.narrowed', tree.narrowed);
    void vscode.commands.executeCommand('setContext', 'hookbench.deliveries.filtered', tree.activeFilter !== undefined);
    void vscode.commands.executeCommand('setContext', 'hookbench.deliveries.cleared', tree.cleared);
    void workspaceState.update(DELIVERIES_VIEW_KEY, tree.kept);
  };
  store.add(tree.onDidChangeFilter(show));
  // A description set while VS Code restores the window can reach it before the view does, and is
  // dropped: said again once the view shows.
  store.add(view.onDidChangeVisibility(({ visible }) => visible && (view.description = tree.describe())));
  tree.restore(workspaceState.get(DELIVERIES_VIEW_KEY));
  // `text`: the filter as typed (scripts and tests); without it, the user types it.
  registerCommand(store, logger, 'hookbench.deliveries.filter', async (text?: unknown) => {
    const typed =
      typeof text === 'string'
        ? text
        : await vscode.window.showInputBox({
            title: 'Filter Deliveries',
            prompt: `Words to search, and ${FILTER_KEYS.map((k) => `${k}:`).join(' ')} (e.g. status:4xx outcome:duplicate source:replay). Empty shows all.`,
            placeHolder: 'provider:github status:4xx acme',
            value: tree.activeFilter?.text ?? '',
            validateInput: (v) => {
              const parsed = parseDeliveryFilter(v);
              return 'error' in parsed ? parsed.error : undefined;
            },
          });
    if (typed === undefined) return;
    const parsed = parseDeliveryFilter(typed);
    if ('error' in parsed) throw new Error(parsed.error);
    tree.setFilter(parsed);
  });
  registerCommand(store, logger, 'hookbench.deliveries.clearFilter', () => tree.showAll());
  registerCommand(store, logger, 'hookbench.deliveries.clear', () => tree.clear());
}
