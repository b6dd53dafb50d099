import * as vscode from 'vscode';
import type { AdminClient } from '../client/adminClient';
import type { ExplorerSession } from './explorerSession';

/** A flat, live list view over the admin API: redrawn whenever the explorer session changes. */
export abstract class ListTree<T> implements vscode.TreeDataProvider<T> {
  private readonly changed = new vscode.EventEmitter<T | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly session: ExplorerSession) {
    session.onDidChange(() => this.changed.fire(undefined));
  }

  /** Redraws the list (labels that depend on more than the session changed). */
  refresh(): void {
    this.changed.fire(undefined);
  }

  /** What the list showed last: it stays readable while the receiver is stopped or restarting. */
  private lastKnown: T[] = [];

  async getChildren(node?: T): Promise<T[]> {
    const client = this.session.client;
    if (node) return [];
    if (!client) return this.lastKnown;
    this.lastKnown = await this.load(client);
    return this.lastKnown;
  }

  protected abstract load(client: AdminClient): Promise<T[]>;

  abstract getTreeItem(item: T): vscode.TreeItem;
}
