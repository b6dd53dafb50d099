/**
 * The Bindings view: the worker's bindings (KV, D1, R2, queues, workflows, Durable Object alarms),
 * each with what it holds as children, a page (100) at a time with "Show 100 more". It is its own
 * view rather than a section of Agents. Binding data is read on demand — on expand, and again on
 * the views' Refresh or when the receiver restarts — and kept live for what the user opened: when
 * the feed says a binding's data changed (`binding` messages), a binding whose children were read
 * reads its first page again, at most once per `LIVE_DEBOUNCE_MS`; one never opened costs nothing.
 */
import * as vscode from 'vscode';
import { changeReaches, type BindingChange, type BindingSummary } from '../../core/contract/bindings';
import { realTimers, type TimerHandle, type Timers } from '../../core/timers';
import type { AdminClient } from '../client/adminClient';
import { bindingId, bindingTreeItem, pageOf, type BindingItem, type BindingNode } from './bindingNodes';
import type { ExplorerSession } from './explorerSession';

interface Loaded {
  header: BindingItem[];
  entries: BindingItem[];
  cursor: string | undefined;
}

type BindingRoot = Extract<BindingNode, { kind: 'binding' }>;

/** How long a binding waits after a change before reading again, so a burst of writes is one read. */
export const LIVE_DEBOUNCE_MS = 300;

export class BindingsTree implements vscode.TreeDataProvider<BindingNode> {
  private readonly changed = new vscode.EventEmitter<BindingNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: BindingRoot[] | undefined;
  /** What each binding shows, by binding id: the pages read so far. */
  private readonly loaded = new Map<string, Loaded>();
  private client: AdminClient | undefined;
  /** Bindings waiting to read again after a change, by binding id. */
  private readonly pending = new Map<string, TimerHandle>();

  constructor(
    private readonly session: Pick<ExplorerSession, 'client' | 'onDidChange' | 'onDidReload' | 'onLive'>,
    private readonly logError: (message: string) => void,
    private readonly timers: Timers = realTimers,
  ) {
    this.client = session.client;
    session.onLive((message) => {
      if (message.type === 'binding') this.changedData(message);
    });
    session.onDidReload(() => this.refresh());
    // A new receiver (a restart, a new worker): its bindings are read again.
    session.onDidChange(() => {
      if (session.client === this.client) return;
      this.client = session.client;
      this.refresh();
    });
  }

  /** The bindings whose children were read and whose data `change` is about: read again, soon. */
  private changedData(change: BindingChange): void {
    for (const root of this.roots ?? []) {
      if (!changeReaches(change, root.binding) || !this.loaded.has(root.id) || this.pending.has(root.id)) continue;
      this.pending.set(
        root.id,
        this.timers.after(LIVE_DEBOUNCE_MS, () => {
          this.pending.delete(root.id);
          this.loaded.delete(root.id);
          this.changed.fire(root);
        }),
      );
    }
  }

  /** Forgets what was read: the next look reads again. */
  refresh(): void {
    for (const timer of this.pending.values()) timer.cancel();
    this.pending.clear();
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
      this.roots ??= (await client.bindings()).map((binding): BindingRoot => ({
        kind: 'binding',
        id: bindingId(binding),
        binding,
        ...(binding.kind === 'd1' ? { d1: binding.name } : {}),
      }));
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
    return {
      kind: 'item',
      id: `${bindingId(binding)}/#error`,
      label: 'Could not read it',
      description: message,
      tooltip: message,
      icon: 'error',
      contextValue: 'hookbench.bindingError',
    };
  }
}
