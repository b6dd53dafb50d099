/**
 * The Agents view's Tables node under each local instance: its tables (read on expand through the
 * admin API's read-only query) and their columns with types. Clicking a table opens the instance's
 * SQL console on `SELECT * FROM "t" LIMIT 100`.
 */
import * as vscode from 'vscode';
import { TABLE_SCHEMA_SQL, tablesFrom, type ColumnSchema, type TableSchema } from '../../core/contract/tableSchema';
import type { AdminClient } from '../client/adminClient';
import { rowCommand } from './rowCommand';

export type TablesNode =
  | { kind: 'tables'; namespace: string; agent: string; name: string }
  | { kind: 'table'; namespace: string; agent: string; name: string; table: string; columns: ColumnSchema[] }
  | { kind: 'column'; namespace: string; name: string; table: string; column: ColumnSchema };

export function tablesNodeId(node: TablesNode): string {
  const instance = `${node.namespace}/${node.name}`;
  switch (node.kind) {
    case 'tables':
      return `t:${instance}`;
    case 'table':
      return `t:${instance}/${node.table}`;
    case 'column':
      return `c:${instance}/${node.table}/${node.column.name}`;
  }
}

export async function tablesChildren(node: TablesNode, client: AdminClient | undefined): Promise<TablesNode[]> {
  switch (node.kind) {
    case 'tables': {
      if (!client) return [];
      const tables: TableSchema[] = tablesFrom(await client.queryResult(node.namespace, node.name, TABLE_SCHEMA_SQL));
      return tables.map((t) => ({ kind: 'table', namespace: node.namespace, agent: node.agent, name: node.name, table: t.name, columns: t.columns }));
    }
    case 'table':
      return node.columns.map((column) => ({ kind: 'column', namespace: node.namespace, name: node.name, table: node.table, column }));
    case 'column':
      return [];
  }
}

export function tablesTreeItem(node: TablesNode): vscode.TreeItem {
  const id = tablesNodeId(node);
  switch (node.kind) {
    case 'tables':
      return Object.assign(new vscode.TreeItem('Tables', vscode.TreeItemCollapsibleState.Collapsed), {
        id,
        iconPath: new vscode.ThemeIcon('database'),
        contextValue: 'hookbench.tables',
        tooltip: 'Tables of this instance’s SQLite database, with their columns',
      });
    case 'table':
      return Object.assign(new vscode.TreeItem(node.table, vscode.TreeItemCollapsibleState.Collapsed), {
        id,
        description: `${node.columns.length} column${node.columns.length === 1 ? '' : 's'}`,
        iconPath: new vscode.ThemeIcon('table'),
        contextValue: 'hookbench.table',
        tooltip: node.columns.map((c) => `${c.name} ${c.type}${c.pk ? ' PRIMARY KEY' : ''}${c.notNull ? ' NOT NULL' : ''}`).join('\n'),
        command: rowCommand('agents', 'Browse Table'),
      });
    case 'column':
      return Object.assign(new vscode.TreeItem(node.column.name, vscode.TreeItemCollapsibleState.None), {
        id,
        description: [node.column.type || 'untyped', node.column.pk ? 'primary key' : undefined, node.column.notNull ? 'not null' : undefined]
          .filter(Boolean)
          .join(' · '),
        iconPath: new vscode.ThemeIcon(node.column.pk ? 'key' : 'symbol-field'),
        contextValue: 'hookbench.column',
      });
  }
}
