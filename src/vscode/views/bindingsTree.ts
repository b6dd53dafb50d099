/**
 * The Bindings view: the worker's bindings (KV, D1, R2, queues, workflows, Durable Object alarms),
 * each with what it holds as children, a page (100) at a time with "Show 100 more". It is its own
 * view rather than a section of Agents: the Agents view is instances, kept live by the receiver's
 * feed, while binding data has no feed event and is read on demand — on expand, and again on the
 * views' Refresh or when the receiver restarts (never once per webhook).
 */
import * as vscode from 'vscode';
import type { BindingSummary } from '../../core/contract/bindings';
import type { AdminClient } from '../client/adminClient';
import { bindingId, bindingTreeItem, pageOf, type BindingItem, type BindingNode } from './bindingNodes';
import type { ExplorerSession } from './explorerSession';

interface Loaded {
  header: BindingItem[];
  entries: BindingItem[];
  cursor: string | undefined;
}

type BindingRoot = Extract<BindingNode, { kind: 'binding' }>;

export class BindingsTree implements vscode.TreeDataProvider<BindingNode> {
  private readonly changed = new vscode.EventEmitter<BindingNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: BindingRoot[] | undefined;
  /** What each binding shows, by binding id: the pages read so far. */
  private readonly loaded = new Map<string, Loaded>();
  private client: AdminClient | undefined;

  constructor(
    private readonly session: Pick<ExplorerSession, 'client' | 'onDidChange' | 'onDidReload'>,
    private readonly logError: (message: string) => void,
  ) {
    this.client = session.client;
    session.onDidReload(() => this.refresh());
    // A new receiver (a restart, a new worker): its bindings are read again.
    session.onDidChange(() => {
      if (session.client === this.client) return;
      this.client = session.client;
      this.refresh();
    });
  }

  /** Forgets what was read: the next look reads again. */
  refresh(): void {
    this.roots = undefined;
    this.loaded.clear();
    this.changed.fire(undefined);
  }

  getTreeItem(node: BindingNode): vscode.TreeItem {
    return bindingTreeItem(node);
  }

  getParent(node: BindingNode): BindingNode | undefined {
    if (node.kind === 'binding') return undefined;
    return this.roots?.find((root) => node.id.startsWith(`${root.id}/`) || (node.kind === 'bindingsMore' && node.bindingId === root.id));
  }

  async getChildren(node?: BindingNode): Promise<BindingNode[]> {
    const client = this.session.client;
    if (!node) {
      if (!client) return this.roots ?? [];
      this.roots ??= (await client.bindings()).map((binding): BindingRoot => ({ kind: 'binding', id: bindingId(binding), binding, ...(binding.kind === 'd1' ? { d1: binding.name } : {}) }));
      return this.roots;
    }
    if (node.kind === 'item') return [...(node.children ?? [])];
    if (node.kind === 'bindingsMore') return [];
    let loaded = this.loaded.get(node.id);
    if (!loaded) {
      if (!client) return [];
      try {
        const page = await pageOf(client, node.binding, undefined);
        loaded = { header: page.header, entries: page.entries, cursor: page.cursor };
        this.loaded.set(node.id, loaded);
      } catch (error) {
        return [this.failure(node.binding, error)];
      }
    }
    const children: BindingNode[] = [...loaded.header, ...loaded.entries];
    if (loaded.cursor) children.push({ kind: 'bindingsMore', id: `${node.id}/#more`, bindingId: node.id });
    return children;
  }

  /** "Show 100 more" was clicked: the binding's next page is read and added. */
  async showMore(node: BindingNode): Promise<void> {
    if (node.kind !== 'bindingsMore') return;
    const root = this.roots?.find((r) => r.id === node.bindingId);
    const loaded = this.loaded.get(node.bindingId);
    const client = this.session.client;
    if (!root || !loaded?.cursor || !client) return;
    const page = await pageOf(client, root.binding, loaded.cursor);
    loaded.entries.push(...page.entries);
    loaded.cursor = page.cursor;
    this.changed.fire(root);
  }

  private failure(binding: BindingSummary, error: unknown): BindingItem {
    const message = (error as Error)?.message ?? String(error);
    this.logError(`[bindings] reading ${binding.kind} ${binding.name}: ${message}`);
    return { kind: 'item', id: `${bindingId(binding)}/#error`, label: 'Could not read it', description: message, tooltip: message, icon: 'error', contextValue: 'hookbench.bindingError' };
  }
}
