import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import { AgentsTree, type AgentNode } from './agentsTree';
import { DeliveriesTree } from './deliveriesTree';
import type { AttachedWorkers } from './attachedWorkers';
import type { ExplorerSession } from './explorerSession';
import { OutboundTree } from './outboundTree';

/** The views of the Hookbench activity-bar container, as declared in `package.json`. */
export const VIEW_IDS = ['hookbench.agents', 'hookbench.deliveries', 'hookbench.outbound'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export interface Views {
  readonly trees: { readonly agents: AgentsTree; readonly deliveries: DeliveriesTree; readonly outbound: OutboundTree };
  readonly views: Readonly<Record<ViewId, vscode.TreeView<unknown>>>;
}

export function registerViews(store: DisposableStore, session: ExplorerSession, attached: AttachedWorkers): Views {
  const trees = { agents: new AgentsTree(session, attached), deliveries: new DeliveriesTree(session), outbound: new OutboundTree(session) };
  const agents = store.add(vscode.window.createTreeView<AgentNode>('hookbench.agents', { treeDataProvider: trees.agents, showCollapseAll: true }));
  const deliveries = store.add(vscode.window.createTreeView('hookbench.deliveries', { treeDataProvider: trees.deliveries }));
  const outbound = store.add(vscode.window.createTreeView('hookbench.outbound', { treeDataProvider: trees.outbound }));
  return {
    trees,
    views: { 'hookbench.agents': agents, 'hookbench.deliveries': deliveries, 'hookbench.outbound': outbound } as Record<ViewId, vscode.TreeView<unknown>>,
  };
}
