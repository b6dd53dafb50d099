import * as vscode from 'vscode';
import type { ExplorerChange, ExplorerModel } from './explorerModel';
import type { ExplorerSession } from './explorerSession';

/**
 * A flat list view over the explorer's model, which the live feed keeps current: a new item at the
 * top redraws the list (its root) from the model, with no request to the serve process.
 */
export abstract class ListTree<T> implements vscode.TreeDataProvider<T> {
  private readonly changed = new vscode.EventEmitter<T | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly session: ExplorerSession) {
    session.onDidChange((change) => {
      if (change.all || this.affectedBy(change)) this.changed.fire(undefined);
    });
  }

  /** Redraws the list (labels that depend on more than the session changed). */
  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: T): Promise<T[]> {
    if (node) return [];
    // While the receiver is stopped or restarting, what the list showed last stays readable.
    await this.session.model.ready();
    return [...this.items(this.session.model)];
  }

  protected abstract affectedBy(change: ExplorerChange): boolean;

  protected abstract items(model: ExplorerModel): readonly T[];

  abstract getTreeItem(item: T): vscode.TreeItem;
}
