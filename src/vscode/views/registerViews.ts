import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import { PlaceholderTree } from './placeholderTree';

/** The views of the Hookbench activity-bar container, as declared in `package.json`. */
export const VIEW_IDS = ['hookbench.agents', 'hookbench.deliveries', 'hookbench.outbound'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export function registerViews(store: DisposableStore): Record<ViewId, vscode.TreeView<unknown>> {
  const entries = VIEW_IDS.map((id) => {
    const view = vscode.window.createTreeView<unknown>(id, {
      treeDataProvider: new PlaceholderTree(),
      showCollapseAll: id === 'hookbench.agents',
    });
    store.add(view);
    return [id, view] as const;
  });
  return Object.fromEntries(entries) as Record<ViewId, vscode.TreeView<unknown>>;
}
