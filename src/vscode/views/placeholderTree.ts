import type * as vscode from 'vscode';

/**
 * A tree with no items yet: VS Code then shows the view's `viewsWelcome` content. The live
 * providers replace it per view as they are built.
 */
export class PlaceholderTree implements vscode.TreeDataProvider<never> {
  getTreeItem(element: never): vscode.TreeItem {
    return element;
  }

  getChildren(): never[] {
    return [];
  }
}
