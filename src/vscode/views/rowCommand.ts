/**
 * Clicks on tree rows that survive a refresh (docs/explorer.md, "Under traffic").
 *
 * VS Code keeps a row command's arguments in a cache of the extension host that the row's next
 * redraw empties; a click that reaches the extension host after a refresh redrew the row fails
 * with "Actual command not found, wanted to execute … /65". Built-in API commands such as
 * `vscode.open` are passed as they are, and so is a command without arguments. A row whose action
 * needs its node runs its view's argument-free "open row" command instead: it acts on the row the
 * click selected, reading what to do from the node at that moment.
 */
import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import type { Logger } from '../../core/log';
import { registerCommand } from '../commands';

/** The views whose rows act through their selection. */
export type RowView = 'agents' | 'bindings';

const OPEN_ROW: Record<RowView, string> = { agents: 'hookbench.agents.openRow', bindings: 'hookbench.bindings.openRow' };

/** How long a click may wait for its selection to reach the extension host. */
const SELECTION_WAIT_MS = 1_000;

/** The command a row of `view` runs on a click: no arguments, titled as its action. */
export function rowCommand(view: RowView, title: string): vscode.Command {
  return { command: OPEN_ROW[view], title };
}

/**
 * Registers `view`'s open-row command: the selected row's action (`actionOf`, the command it
 * would have run with its arguments) runs with those arguments. The selection comes to the
 * extension host before the click's command; should it come after, the command waits for it.
 */
export function registerRowCommand<T>(
  store: DisposableStore,
  logger: Logger,
  view: RowView,
  tree: vscode.TreeView<T>,
  actionOf: (node: T) => vscode.Command | undefined,
): void {
  const selected = (nodes: readonly T[]) => nodes.map(actionOf).find((action) => action !== undefined);
  const nextSelection = () =>
    new Promise<vscode.Command | undefined>((resolve) => {
      const timer = setTimeout(() => {
        sub.dispose();
        resolve(undefined);
      }, SELECTION_WAIT_MS);
      const sub = tree.onDidChangeSelection(({ selection }) => {
        const action = selected(selection);
        if (!action) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(action);
      });
    });
  registerCommand(store, logger, OPEN_ROW[view], async () => {
    const action = selected(tree.selection) ?? (await nextSelection());
    if (!action) throw new Error(`select a row of the ${view === 'agents' ? 'Agents' : 'Bindings'} view to open it`);
    return vscode.commands.executeCommand(action.command, ...(action.arguments ?? []));
  });
}
