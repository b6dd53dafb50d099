/**
 * The Agents view: namespace → instance (events, last event type, when) → State (the JSON as
 * expandable key/value items) and Events (newest first). Nodes are plain data with stable ids;
 * `getTreeItem` builds a fresh item each time. Instances and events come a page (100) at a time,
 * with a "Show 100 more" node after them; expanding an instance opens its agents-protocol channel
 * (explorerModel.ts), collapsing it closes it.
 */
import * as vscode from 'vscode';
import type { EventRow, WebhookState } from '../../core/contract/instances';
import type { AttachedWorker, AttachedWorkers } from './attachedWorkers';
import { instanceKey, PAGE, type ExplorerChange, type ExplorerFeed, type ExplorerModel } from './explorerModel';
import { relativeTime } from './explorerSession';
import { SHOW_MORE_COMMAND } from './listTree';
import { rowCommand } from './rowCommand';
import { textTooltip } from './tooltip';
import { eventUri } from '../documentUris';
import { tablesChildren, tablesNodeId, tablesTreeItem, type TablesNode } from './tablesNodes';

export type AgentNode =
  | { kind: 'attached'; worker: AttachedWorker }
  | { kind: 'remote'; worker: AttachedWorker; name: string }
  | { kind: 'remoteEvents'; worker: AttachedWorker; name: string }
  | { kind: 'namespace'; namespace: string; agent: string }
  | { kind: 'instance'; namespace: string; agent: string; name: string }
  | { kind: 'state'; namespace: string; name: string; state: unknown }
  | { kind: 'value'; id: string; key: string; value: unknown }
  | { kind: 'events'; namespace: string; name: string; count: number }
  | { kind: 'event'; namespace: string; name: string; event: EventRow & { payload?: string | null } }
  /** "Show 100 more" after a page of a namespace's instances (`name` undefined) or of an instance's events. */
  | { kind: 'more'; namespace: string; name?: string; remaining: number | undefined }
  | TablesNode;

/** What the tree shows of an instance's state: the built-in worker's fields, when a state has them. */
type ShownState = Partial<WebhookState>;

function preview(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.length}]`;
  if (typeof value === 'object') return `{${Object.keys(value as object).length}}`;
  return JSON.stringify(value);
}

/** The node's stable id, also its `TreeItem.id`. */
function nodeId(node: AgentNode): string {
  switch (node.kind) {
    case 'attached':
      return `a:${node.worker.baseUrl}|${node.worker.agent}`;
    case 'remote':
      return `r:${node.worker.baseUrl}|${node.worker.agent}|${node.name}`;
    case 'remoteEvents':
      return `re:${node.worker.baseUrl}|${node.worker.agent}|${node.name}`;
    case 'namespace':
      return `ns:${node.namespace}`;
    case 'instance':
      return `i:${instanceKey(node.namespace, node.name)}`;
    case 'state':
      return `s:${node.namespace}/${node.name}`;
    case 'value':
      return `v:${node.id}`;
    case 'events':
      return `e:${instanceKey(node.namespace, node.name)}`;
    case 'event':
      return `ev:${node.namespace}/${node.name}/${node.event.id}`;
    case 'more':
      return node.name === undefined ? `m:${node.namespace}` : `me:${instanceKey(node.namespace, node.name)}`;
    default:
      return tablesNodeId(node);
  }
}

export class AgentsTree implements vscode.TreeDataProvider<AgentNode> {
  private readonly changed = new vscode.EventEmitter<AgentNode | AgentNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /**
   * One object per node id: VS Code finds the node to redraw by the object it was given, so a
   * change for an instance fires the very object the tree holds (its fields are kept current).
   */
  private readonly nodes = new Map<string, AgentNode>();
  /** How many instances each namespace shows (a page, more once asked). */
  private readonly shown = new Map<string, number>();
  /** The number of the latest read of each node's children, by node id ('' for the roots). */
  private readonly reads = new Map<string, number>();

  constructor(
    private readonly session: ExplorerFeed,
    private readonly attached: Pick<AttachedWorkers, 'list' | 'connection' | 'onDidChange'>,
  ) {
    session.onDidChange((change) => this.onModelChange(change));
    attached.onDidChange(() => session.schedule());
  }

  private get model(): ExplorerModel {
    return this.session.model;
  }

  private onModelChange(change: ExplorerChange): void {
    if (change.all || change.namespaceList) return this.changed.fire(undefined);
    const nodes = new Set<AgentNode>();
    const add = (id: string) => {
      const node = this.nodes.get(id);
      if (node) nodes.add(node);
    };
    for (const namespace of change.namespaces) add(`ns:${namespace}`);
    for (const key of change.instances) add(`i:${key}`);
    for (const key of change.events) add(`e:${key}`);
    if (nodes.size > 0) this.changed.fire([...nodes]);
  }

  /** For `reveal`: an instance's and a namespace page's parent is their namespace node. */
  getParent(node: AgentNode): AgentNode | undefined {
    if (node.kind === 'instance' || (node.kind === 'more' && node.name === undefined)) return this.nodes.get(`ns:${node.namespace}`);
    if (node.kind === 'state' || node.kind === 'events' || (node.kind === 'more' && node.name !== undefined))
      return this.nodes.get(`i:${instanceKey(node.namespace, node.name!)}`);
    return undefined;
  }

  /** "Show 100 more" was clicked: the next page of instances, or of events. */
  showMore(node: AgentNode): void {
    if (node.kind !== 'more') return;
    if (node.name !== undefined) return this.model.showMoreEvents(node.namespace, node.name);
    this.shown.set(node.namespace, (this.shown.get(node.namespace) ?? PAGE) + PAGE);
    const parent = this.nodes.get(`ns:${node.namespace}`);
    if (parent) this.changed.fire([parent]);
  }

  /** A node was expanded: an instance's channel opens (VS Code may reuse its children without asking). */
  expanded(node: AgentNode): void {
    if (node.kind === 'instance') this.model.expand(node.namespace, node.name);
  }

  /** A node was collapsed: an instance's channel closes (its description stays live from the feed). */
  collapsed(node: AgentNode): void {
    if (node.kind === 'instance') this.model.collapse(node.namespace, node.name);
  }

  /** The node object for `fresh`'s id, updated to `fresh`'s fields. */
  private stable<N extends AgentNode>(fresh: N): N {
    const id = nodeId(fresh);
    const known = this.nodes.get(id);
    if (known && known.kind === fresh.kind) return Object.assign(known, fresh) as N;
    this.nodes.set(id, fresh);
    return fresh;
  }

  /**
   * The children of `node`, each id once. VS Code registers every answer it gets, and a read that
   * waits (a first expansion reads the instance) can be overtaken by a second read of the same node
   * (its channel's first message refreshes it): the earlier read then answers nothing, so no id is
   * registered twice ("Element with id … is already registered").
   */
  async getChildren(node?: AgentNode): Promise<AgentNode[]> {
    const key = node ? nodeId(node) : '';
    const read = (this.reads.get(key) ?? 0) + 1;
    this.reads.set(key, read);
    const children = await this.readChildren(node);
    if (this.reads.get(key) !== read) return [];
    const seen = new Set<string>();
    return children.filter((child) => !seen.has(nodeId(child)) && seen.add(nodeId(child)));
  }

  private async readChildren(node?: AgentNode): Promise<AgentNode[]> {
    if (!node) {
      const remote: AgentNode[] = this.attached.list().map((worker) => ({ kind: 'attached', worker }));
      // Stopped or restarting: the last known namespaces and instances stay readable.
      await this.model.ready();
      return [...this.model.namespaces().map((n) => this.stable({ kind: 'namespace' as const, ...n })), ...remote];
    }
    if (node.kind === 'attached') return node.worker.names.map((name) => ({ kind: 'remote' as const, worker: node.worker, name }));
    if (node.kind === 'remote') {
      const state = this.attached.connection(node.worker, node.name)?.state;
      return [
        { kind: 'state', namespace: `remote:${node.worker.baseUrl}`, name: node.name, state: state ?? null },
        { kind: 'remoteEvents', worker: node.worker, name: node.name },
      ];
    }
    if (node.kind === 'remoteEvents') {
      // The same read as a local instance's channel; a deployed worker has no SQL fallback.
      const reader = this.attached.connection(node.worker, node.name);
      const events = ((await reader?.events(PAGE).catch(() => undefined))?.rows ?? []) as (EventRow & { payload?: string })[];
      return events.map((event) => ({ kind: 'event' as const, namespace: `remote:${node.worker.baseUrl}`, name: node.name, event }));
    }
    switch (node.kind) {
      case 'namespace': {
        const entries = this.model.instances(node.namespace);
        const page = entries.slice(0, this.shown.get(node.namespace) ?? PAGE);
        // The page is described in one request, once per connection; the live feed keeps it current.
        await this.model.loadDetails(page);
        // An expanded instance pushed off the page has left the view: its channel closes.
        this.model.closeChannelsOutside(node.namespace, new Set(page.map((e) => e.summary.name)));
        const children: AgentNode[] = page.map(({ summary: i }) =>
          this.stable({ kind: 'instance' as const, namespace: i.namespace, agent: i.agent, name: i.name }),
        );
        if (entries.length > page.length) children.push(this.stable({ kind: 'more', namespace: node.namespace, remaining: entries.length - page.length }));
        return children;
      }
      case 'instance': {
        // Expanded: read it as any client of its agent would, from now until it is collapsed.
        this.model.expand(node.namespace, node.name);
        const unread = this.model.instance(node.namespace, node.name);
        if (unread && !unread.known) await this.model.loadDetails([unread]);
        const entry = this.model.instance(node.namespace, node.name);
        const children: AgentNode[] = [this.stable({ kind: 'state', namespace: node.namespace, name: node.name, state: entry?.state ?? null })];
        if (entry?.eventCount !== undefined)
          children.push(this.stable({ kind: 'events', namespace: node.namespace, name: node.name, count: entry.eventCount }));
        // The inspector's schema (last, so the nodes above keep their places).
        children.push({ kind: 'tables', namespace: node.namespace, agent: node.agent, name: node.name });
        return children;
      }
      case 'state':
        return valueChildren(`${node.namespace}/${node.name}/state`, node.state);
      case 'value':
        return valueChildren(node.id, node.value);
      case 'events': {
        const events = await this.model.loadEvents(node.namespace, node.name);
        const children: AgentNode[] = events.map((event) => ({ kind: 'event' as const, namespace: node.namespace, name: node.name, event }));
        const entry = this.model.instance(node.namespace, node.name);
        const total = entry?.eventCount;
        // A full page, and the table holds more than it shows: offer the next page.
        if (entry && events.length >= entry.eventsWanted && (total === undefined || total > events.length)) {
          children.push(
            this.stable({ kind: 'more', namespace: node.namespace, name: node.name, remaining: total === undefined ? undefined : total - events.length }),
          );
        }
        return children;
      }
      case 'event':
      case 'more':
        return [];
      default:
        return tablesChildren(node, this.session.client);
    }
  }

  /**
   * An instance's and an event's tooltip, built when the pointer rests on the row (VS Code asks only
   * then): the rows a webhook touches are redrawn four times a second under traffic, and the
   * extension host converted each Markdown tooltip at every redraw.
   */
  resolveTreeItem(item: vscode.TreeItem, node: AgentNode): vscode.TreeItem {
    if (item.tooltip !== undefined) return item;
    if (node.kind === 'instance') {
      const entry = this.model.instance(node.namespace, node.name);
      const awake = entry?.summary.awake ?? false;
      const read = this.model.readPath(node.namespace, node.name);
      const how = read.channel
        ? `read over the agents protocol${read.events === 'fallback' ? ' (events by SQL: the agent has no getEvents callable)' : ''}`
        : 'live from the receiver feed';
      item.tooltip = textTooltip([
        [{ strong: node.name }, ` (${node.agent})`],
        [`${awake ? 'awake' : 'asleep'} · ${entry?.summary.connections ?? 0} connection(s)`],
        [how],
      ]);
    } else if (node.kind === 'event') {
      const { event } = node;
      item.tooltip = textTooltip([[{ strong: event.title }], [[event.type, event.action].filter(Boolean).join(' · ')], [`${event.id} · ${event.timestamp}`]]);
    }
    return item;
  }

  getTreeItem(node: AgentNode): vscode.TreeItem {
    const collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    switch (node.kind) {
      case 'attached':
        return Object.assign(new vscode.TreeItem(new URL(node.worker.baseUrl).host, vscode.TreeItemCollapsibleState.Expanded), {
          id: `a:${node.worker.baseUrl}|${node.worker.agent}`,
          description: `deployed · ${node.worker.agent}`,
          tooltip: node.worker.baseUrl,
          iconPath: new vscode.ThemeIcon('cloud'),
          contextValue: 'hookbench.attached',
        });
      case 'remote': {
        const connection = this.attached.connection(node.worker, node.name);
        const state = (connection?.state ?? {}) as ShownState;
        const description = connection?.connection.error
          ? `not connected: ${connection.connection.error}`
          : [
              state.lastEventType ?? undefined,
              state.lastEventAt ? relativeTime(state.lastEventAt) : undefined,
              state.stats?.total === undefined ? undefined : `${state.stats.total} total`,
            ]
              .filter(Boolean)
              .join(' · ');
        return Object.assign(new vscode.TreeItem(node.name, collapsed), {
          id: `r:${node.worker.baseUrl}|${node.worker.agent}|${node.name}`,
          description,
          iconPath: new vscode.ThemeIcon(connection?.connection.error ? 'debug-disconnect' : 'circle-filled'),
          contextValue: 'hookbench.remoteInstance',
        });
      }
      case 'remoteEvents':
        return Object.assign(new vscode.TreeItem('Events', collapsed), {
          id: `re:${node.worker.baseUrl}|${node.worker.agent}|${node.name}`,
          description: `getEvents(${PAGE})`,
          iconPath: new vscode.ThemeIcon('history'),
        });
      case 'namespace':
        return Object.assign(new vscode.TreeItem(node.agent, vscode.TreeItemCollapsibleState.Expanded), {
          id: `ns:${node.namespace}`,
          description: node.namespace,
          iconPath: new vscode.ThemeIcon('symbol-namespace'),
          contextValue: 'hookbench.namespace',
        });
      case 'instance': {
        const entry = this.model.instance(node.namespace, node.name);
        const state = (entry?.state ?? {}) as ShownState;
        const count = entry?.eventCount;
        const awake = entry?.summary.awake ?? false;
        // Asleep: evicted when idle or for the memory budget; the next request wakes it.
        const parts = [
          count === undefined ? undefined : `${count} event${count === 1 ? '' : 's'}`,
          state.lastEventType ?? undefined,
          state.lastEventAt ? relativeTime(state.lastEventAt) : undefined,
          awake ? undefined : 'asleep',
        ];
        return Object.assign(new vscode.TreeItem(node.name, collapsed), {
          id: nodeId(node),
          description: parts.filter(Boolean).join(' · '),
          iconPath: new vscode.ThemeIcon(awake ? 'circle-filled' : 'circle-outline'),
          contextValue: 'hookbench.instance',
        });
      }
      case 'state':
        return Object.assign(new vscode.TreeItem('State', collapsed), {
          id: `s:${node.namespace}/${node.name}`,
          iconPath: new vscode.ThemeIcon('json'),
          contextValue: 'hookbench.state',
        });
      case 'value': {
        const expandable = node.value !== null && typeof node.value === 'object';
        return Object.assign(new vscode.TreeItem(node.key, expandable ? collapsed : vscode.TreeItemCollapsibleState.None), {
          id: `v:${node.id}`,
          description: preview(node.value),
          tooltip: expandable ? undefined : JSON.stringify(node.value),
          contextValue: 'hookbench.value',
        });
      }
      case 'events':
        return Object.assign(new vscode.TreeItem('Events', collapsed), {
          id: `e:${node.namespace}/${node.name}`,
          description: String(node.count),
          iconPath: new vscode.ThemeIcon('history'),
          contextValue: 'hookbench.events',
        });
      case 'more':
        return Object.assign(new vscode.TreeItem('Show 100 more', vscode.TreeItemCollapsibleState.None), {
          id: nodeId(node),
          description: node.remaining === undefined ? undefined : `${node.remaining} not shown`,
          iconPath: new vscode.ThemeIcon('ellipsis'),
          contextValue: 'hookbench.more',
          command: rowCommand('agents', 'Show 100 More'),
        });
      case 'event': {
        const { event } = node;
        const label = eventLabel(event);
        return Object.assign(new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None), {
          id: `ev:${node.namespace}/${node.name}/${event.id}`,
          description: relativeTime(event.timestamp),
          iconPath: new vscode.ThemeIcon('mail'),
          contextValue: 'hookbench.event',
          command: eventCommand(node),
        });
      }
      default:
        return tablesTreeItem(node);
    }
  }
}

function valueChildren(id: string, value: unknown): AgentNode[] {
  if (value === null || typeof value !== 'object') return [];
  // Encoded: a key with "/" in it must not name the same node as a nested key.
  return Object.entries(value as Record<string, unknown>).map(([key, v]) => ({
    kind: 'value' as const,
    id: `${id}/${encodeURIComponent(key)}`,
    key,
    value: v,
  }));
}

/**
 * A local event opens as the delivery that stored it, by its URI (`vscode.open`, which VS Code
 * passes as it is: no reference to a row a refresh may have dropped); a deployed worker's event
 * carries its payload and opens that.
 */
function eventCommand(node: Extract<AgentNode, { kind: 'event' }>): vscode.Command {
  if (node.namespace.startsWith('remote:')) return rowCommand('agents', 'Open Payload');
  return { command: 'vscode.open', title: 'Open Event', arguments: [eventUri(node.namespace, node.name, node.event), { preview: true }] };
}

/** What a click on an Agents row does, with its node (rowCommand.ts runs it for the selected row). */
export function agentRowAction(node: AgentNode): vscode.Command | undefined {
  switch (node.kind) {
    case 'more':
      return { command: SHOW_MORE_COMMAND, title: 'Show 100 More', arguments: [node] };
    case 'event':
      return node.namespace.startsWith('remote:') ? { command: 'hookbench.event.openPayload', title: 'Open Payload', arguments: [node] } : eventCommand(node);
    case 'table':
      return { command: 'hookbench.sql.open', title: 'Browse Table', arguments: [node] };
    default:
      return undefined;
  }
}

/**
 * An event's row: its type and action, then its title, leaving out the type or action where the
 * title already says it (`PR #1 opened: …` needs no `opened` before it, `orders/create · #1001`
 * no `orders/create`); the tooltip keeps both.
 */
export function eventLabel(event: { readonly type: string; readonly action: string | null; readonly title: string }): string {
  const said = (word: string | null) =>
    word !== null && word !== '' && new RegExp(`(^|\\W)${word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}($|\\W)`, 'i').test(event.title);
  return [said(event.type) ? null : event.type, said(event.action) ? null : event.action, event.title].filter(Boolean).join(' · ');
}
