/**
 * The Bindings view's nodes: one per binding of the worker, and, under it, what the binding holds
 * (KV keys, D1 tables, R2 objects, a queue's backlog and messages, workflow instances and their
 * steps, Durable Object alarms) as plain data with stable ids, read a page at a time through the
 * admin API. `pageOf` reads one page of a binding; `bindingTreeItem` draws any node.
 */
import * as vscode from 'vscode';
import type { BindingKind, BindingSummary } from '../../core/contract/bindings';
import type { AdminClient } from '../client/adminClient';
import { SHOW_MORE_COMMAND } from './listTree';
import { rowCommand } from './rowCommand';

export const OPEN_VALUE_COMMAND = 'hookbench.bindings.openValue';

export type BindingNode =
  /** A binding; `d1` is set on a D1 database, so the SQL console's command can open on it. */
  | { readonly kind: 'binding'; readonly id: string; readonly binding: BindingSummary; readonly d1?: string }
  | BindingItem
  /** "Show 100 more" after a page of a binding's entries. */
  | { readonly kind: 'bindingsMore'; readonly id: string; readonly bindingId: string };

/** One thing a binding holds (or a line about it). */
export interface BindingItem {
  readonly kind: 'item';
  readonly id: string;
  readonly label: string;
  readonly description?: string;
  readonly tooltip?: string;
  readonly icon: string;
  readonly contextValue: string;
  readonly children?: readonly BindingItem[];
  readonly command?: vscode.Command;
}

/** A page of a binding's entries: lines about it first (a queue's counts), then the entries. */
export interface BindingPage {
  readonly header: BindingItem[];
  readonly entries: BindingItem[];
  readonly cursor?: string;
}

export const PAGE_SIZE = 100;

const ICONS: Record<BindingKind, string> = {
  kv: 'key',
  d1: 'database',
  r2: 'archive',
  queue: 'list-ordered',
  workflow: 'type-hierarchy',
  durableObject: 'symbol-class',
};
const KINDS: Record<BindingKind, string> = {
  kv: 'KV namespace',
  d1: 'D1 database',
  r2: 'R2 bucket',
  queue: 'queue',
  workflow: 'workflow',
  durableObject: 'Durable Object alarms',
};

export const isBindingsMore = (node: unknown): node is Extract<BindingNode, { kind: 'bindingsMore' }> =>
  (node as Partial<BindingNode> | undefined)?.kind === 'bindingsMore';

export function bindingId(binding: BindingSummary): string {
  return `b:${binding.kind}:${binding.name}`;
}

function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

function when(iso: string, now = Date.now()): string {
  const minutes = Math.round((Date.parse(iso) - now) / 60_000);
  if (Math.abs(minutes) < 1) return 'now';
  if (Math.abs(minutes) < 120) return minutes > 0 ? `in ${minutes} min` : `${-minutes} min ago`;
  return iso.replace('T', ' ').slice(0, 16);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Reads one page of what `binding` holds (after `cursor`). */
export async function pageOf(client: AdminClient, binding: BindingSummary, cursor: string | undefined): Promise<BindingPage> {
  const base = bindingId(binding);
  const page = { cursor, limit: PAGE_SIZE };
  switch (binding.kind) {
    case 'kv': {
      const { keys, cursor: next } = await client.kvKeys(binding.name, page);
      const entries = keys.map((key): BindingItem => ({
        kind: 'item',
        id: `${base}/${key.name}`,
        label: key.name,
        description: [
          key.expiration === undefined ? undefined : `expires ${when(new Date(key.expiration * 1000).toISOString())}`,
          key.metadata === undefined ? undefined : JSON.stringify(key.metadata),
        ]
          .filter(Boolean)
          .join(' · '),
        icon: 'symbol-key',
        contextValue: 'hookbench.kvKey',
        command: { command: OPEN_VALUE_COMMAND, title: 'Open Value', arguments: [{ binding: binding.name, key: key.name }] },
      }));
      return { header: [], entries, cursor: next };
    }
    case 'd1': {
      const { tables } = await client.d1Tables(binding.name);
      const entries = tables.map((table): BindingItem => ({
        kind: 'item',
        id: `${base}/${table.name}`,
        label: table.name,
        description: plural(table.columns.length, 'column'),
        tooltip: table.columns.map((c) => `${c.name} ${c.type}${c.pk ? ' PRIMARY KEY' : ''}${c.notNull ? ' NOT NULL' : ''}`).join('\n'),
        icon: 'table',
        contextValue: 'hookbench.d1Table',
        command: { command: 'hookbench.sql.open', title: 'Browse Table', arguments: [{ d1: binding.name, table: table.name }] },
      }));
      return { header: [], entries };
    }
    case 'r2': {
      const { objects, cursor: next } = await client.r2Objects(binding.name, page);
      const entries = objects.map((object): BindingItem => ({
        kind: 'item',
        id: `${base}/${object.key}`,
        label: object.key,
        description: `${bytes(object.size)} · ${when(object.uploaded)}`,
        tooltip: [
          `etag ${object.etag}`,
          `uploaded ${object.uploaded}`,
          ...Object.entries(object.httpMetadata).map(([k, v]) => `${k}: ${v}`),
          ...Object.entries(object.customMetadata).map(([k, v]) => `${k} = ${v}`),
        ].join('\n'),
        icon: 'file',
        contextValue: 'hookbench.r2Object',
      }));
      return { header: [], entries, cursor: next };
    }
    case 'queue': {
      const info = await client.queue(binding.name, page);
      const header: BindingItem[] = cursor
        ? []
        : [
            {
              kind: 'item',
              id: `${base}/#backlog`,
              label: `Backlog: ${info.backlog}`,
              description: [`${info.delayed} delayed`, `${info.inFlight} in flight`, `${info.retried} retried`].join(' · '),
              tooltip: info.consumed ? 'Messages waiting for the worker’s queue() handler' : 'No consumer in this worker: messages wait here',
              icon: 'inbox',
              contextValue: 'hookbench.queueBacklog',
            },
            ...(info.deadLetterQueue
              ? [
                  {
                    kind: 'item' as const,
                    id: `${base}/#dead`,
                    label: `Dead-lettered: ${info.deadLettered}`,
                    description: `in ${info.deadLetterQueue}`,
                    icon: 'warning',
                    contextValue: 'hookbench.queueDead',
                  },
                ]
              : []),
          ];
      const entries = info.messages.map((m): BindingItem => ({
        kind: 'item',
        id: `${base}/${m.id}`,
        label: m.id,
        description: [m.retries === 1 ? '1 retry' : `${m.retries} retries`, `due ${when(m.visibleAt)}`, bytes(m.size)].join(' · '),
        tooltip: `attempt ${m.attempts} · sent ${m.sentAt} · ${m.contentType}`,
        icon: m.retries > 0 ? 'sync' : 'mail',
        contextValue: 'hookbench.queueMessage',
      }));
      return { header, entries, cursor: info.cursor };
    }
    case 'workflow': {
      const { instances, cursor: next } = await client.workflowInstances(binding.name, page);
      const entries = instances.map((instance): BindingItem => ({
        kind: 'item',
        id: `${base}/${instance.id}`,
        label: instance.id,
        description: `${instance.status} · ${plural(instance.steps.length, 'step')}`,
        tooltip: instance.error ? `${instance.error.name}: ${instance.error.message}` : undefined,
        icon: instance.status === 'errored' ? 'error' : instance.status === 'complete' ? 'pass' : 'play-circle',
        contextValue: 'hookbench.workflowInstance',
        children: instance.steps.map((step, i) => ({
          kind: 'item',
          id: `${base}/${instance.id}/${i}`,
          label: step.name,
          description: step.ok ? step.kind : `${step.kind} · failed`,
          icon: step.ok ? 'check' : 'close',
          contextValue: 'hookbench.workflowStep',
        })),
      }));
      return { header: [], entries, cursor: next };
    }
    case 'durableObject': {
      const { alarms, cursor: next } = await client.alarms(binding.name, page);
      const entries = alarms.map((alarm): BindingItem => ({
        kind: 'item',
        id: `${base}/${alarm.name}`,
        label: alarm.name,
        description: `alarm ${when(alarm.time)}`,
        tooltip: alarm.time,
        icon: 'bell',
        contextValue: 'hookbench.alarm',
      }));
      return { header: [], entries, cursor: next };
    }
  }
}

/** What a click on a Bindings row does, with its node (rowCommand.ts runs it for the selected row). */
export function bindingRowAction(node: BindingNode): vscode.Command | undefined {
  if (node.kind === 'bindingsMore') return { command: SHOW_MORE_COMMAND, title: 'Show 100 More', arguments: [node] };
  return node.kind === 'item' ? node.command : undefined;
}

export function bindingTreeItem(node: BindingNode): vscode.TreeItem {
  switch (node.kind) {
    case 'binding':
      return Object.assign(new vscode.TreeItem(node.binding.name, vscode.TreeItemCollapsibleState.Collapsed), {
        id: node.id,
        description: node.binding.target === node.binding.name ? KINDS[node.binding.kind] : `${KINDS[node.binding.kind]} · ${node.binding.target}`,
        iconPath: new vscode.ThemeIcon(ICONS[node.binding.kind]),
        contextValue: `hookbench.binding.${node.binding.kind}`,
      });
    case 'bindingsMore':
      return Object.assign(new vscode.TreeItem('Show 100 more', vscode.TreeItemCollapsibleState.None), {
        id: node.id,
        iconPath: new vscode.ThemeIcon('ellipsis'),
        contextValue: 'hookbench.more',
        command: rowCommand('bindings', 'Show 100 More'),
      });
    case 'item':
      return Object.assign(
        new vscode.TreeItem(
          node.label,
          node.children && node.children.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        ),
        {
          id: node.id,
          description: node.description,
          tooltip: node.tooltip,
          iconPath: new vscode.ThemeIcon(node.icon),
          contextValue: node.contextValue,
          command: node.command && rowCommand('bindings', node.command.title),
        },
      );
  }
}
