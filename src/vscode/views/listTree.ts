import * as vscode from 'vscode';
import { PAGE, type ExplorerChange, type ExplorerFeed, type ExplorerModel } from './explorerModel';

/** The node after a full list: "Show 100 more" reads the next page. */
export interface MoreItem {
  readonly kind: 'more';
  readonly list: string;
}

/** A line after a list that says something about it (the Outbound view: captures the sink dropped). */
export interface NoteItem {
  readonly kind: 'note';
  readonly list: string;
  readonly text: string;
}

const isNote = (item: unknown): item is NoteItem => (item as Partial<NoteItem> | undefined)?.kind === 'note';

/** The command a "Show 100 more" node runs, with the node as its argument (one for every view). */
export const SHOW_MORE_COMMAND = 'hookbench.views.showMore';

/**
 * The command a list's "Show 100 more" node runs, with no argument: both lists page the same model,
 * and a command without arguments has nothing VS Code could drop in a refresh before the click.
 */
export const SHOW_MORE_LISTED_COMMAND = 'hookbench.views.showMoreListed';

/** A list's "Show 100 more" node (the Agents view's have a namespace instead of a list). */
export const isMore = (item: unknown): item is MoreItem =>
  (item as Partial<MoreItem> | undefined)?.kind === 'more' && typeof (item as MoreItem).list === 'string';

/** The list's own items, without its "Show 100 more" node and its note. */
export const listed = <T>(items: readonly (T | MoreItem | NoteItem)[] | null | undefined): T[] =>
  (items ?? []).filter((item): item is T => !isMore(item) && !isNote(item));

/**
 * A flat list view over the explorer's model, which the live feed keeps current: a new item at the
 * top redraws the list (its root) from the model, with no request to the serve process. It shows
 * what the model keeps (a page of 100 at first) and, when that is full, a "Show 100 more" node.
 */
export abstract class ListTree<T> implements vscode.TreeDataProvider<T | MoreItem | NoteItem> {
  private readonly changed = new vscode.EventEmitter<T | MoreItem | NoteItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly more: MoreItem;

  constructor(
    private readonly session: ExplorerFeed,
    private readonly list: string,
  ) {
    this.more = { kind: 'more', list };
    session.onDidChange((change) => {
      if (change.all || this.affectedBy(change)) this.changed.fire(undefined);
    });
  }

  /** False when nothing older than `items` could be shown (a Clear hides it all): no "Show 100 more" then. */
  protected olderMayShow(_items: readonly T[]): boolean {
    return true;
  }

  /** Redraws the list (labels that depend on more than the session changed). */
  refresh(): void {
    this.changed.fire(undefined);
  }

  /** "Show 100 more" was clicked: the model keeps 100 more, read in one request. */
  showMore(): Promise<void> {
    return this.session.model.showMoreDeliveries();
  }

  async getChildren(node?: T | MoreItem | NoteItem): Promise<(T | MoreItem | NoteItem)[]> {
    if (node) return [];
    // While the receiver is stopped or restarting, what the list showed last stays readable.
    await this.session.model.ready();
    const items = this.items(this.session.model);
    // Each id once, whatever the feed and a page read both brought: VS Code refuses a list that
    // registers an id twice ("Element with id … is already registered").
    const seen = new Set<string>();
    const shown = items.filter((item) => this.shows(item) && !seen.has(this.keyOf(item)) && seen.add(this.keyOf(item)));
    // A full list may have more behind it on the serve process.
    const children: (T | MoreItem | NoteItem)[] = items.length >= this.session.model.listLimit && this.olderMayShow(items) ? [...shown, this.more] : shown;
    const note = this.note(this.session.model);
    if (note !== undefined) children.push({ kind: 'note', list: this.list, text: note });
    return children;
  }

  getTreeItem(item: T | MoreItem | NoteItem): vscode.TreeItem {
    if (isNote(item))
      return Object.assign(new vscode.TreeItem(item.text, vscode.TreeItemCollapsibleState.None), {
        id: `note:${item.list}`,
        iconPath: new vscode.ThemeIcon('info'),
        contextValue: 'hookbench.note',
      });
    if (!isMore(item)) return this.treeItem(item);
    return Object.assign(new vscode.TreeItem('Show 100 more', vscode.TreeItemCollapsibleState.None), {
      id: `more:${item.list}`,
      description: `${PAGE} shown per page`,
      iconPath: new vscode.ThemeIcon('ellipsis'),
      contextValue: 'hookbench.more',
      command: { command: SHOW_MORE_LISTED_COMMAND, title: 'Show 100 More' },
    });
  }

  /**
   * An item's tooltip, built when the pointer rests on it (VS Code asks only then): the list
   * redraws every second under traffic, and its extension host converted a Markdown tooltip per
   * row and redraw.
   */
  resolveTreeItem(treeItem: vscode.TreeItem, item: T | MoreItem | NoteItem): vscode.TreeItem {
    if (!isNote(item) && !isMore(item)) treeItem.tooltip ??= this.tooltip(item);
    return treeItem;
  }

  /** An item's tooltip (none by default). */
  protected tooltip(_item: T): vscode.MarkdownString | string | undefined {
    return undefined;
  }

  /** A line to show after the list, if any. */
  protected note(_model: ExplorerModel): string | undefined {
    return undefined;
  }

  /** False for an item the view's filter hides. */
  protected shows(_item: T): boolean {
    return true;
  }

  /** The item's id in the list (its `TreeItem.id` without the view's prefix). */
  protected abstract keyOf(item: T): string;

  protected abstract affectedBy(change: ExplorerChange): boolean;

  protected abstract items(model: ExplorerModel): readonly T[];

  protected abstract treeItem(item: T): vscode.TreeItem;
}
