// The Hookbench side bar's tree views as the user sees and uses them, in the real workbench: the
// launcher reads their rows and clicks, hovers and right-clicks them (scripts/lib/workbenchTree.mjs).
// A row is found by the labels leading to it from a root (`/…/` for a regular expression); each
// row on the way is expanded, as a user expands it.
import * as vscode from 'vscode';
import { userDoes } from './reporter';

export type ViewTitle = 'Agents' | 'Bindings' | 'Deliveries' | 'Outbound';

export interface TreeRow {
  readonly label: string;
  readonly description: string;
  /** null when the row cannot be expanded. */
  readonly expanded: boolean | null;
  readonly level: number;
}

/** What a row's tooltip shows: its text, and the elements it renders (`a <href>`, `img <src>`, `code`). */
export interface Tooltip {
  readonly text: string;
  readonly elements: string[];
}

type Act = 'children' | 'reveal' | 'click' | 'hover' | 'menu' | 'inline' | 'collapse';

async function treeStep(view: ViewTitle, path: readonly string[], act: Act, item?: string): Promise<unknown> {
  await vscode.commands.executeCommand('workbench.view.extension.hookbench');
  return userDoes({ tree: { view, path: [...path], act, ...(item !== undefined ? { item } : {}) } }, 90_000);
}

/** The rows under the row at `path` (the roots when empty), as the view shows them now. */
export async function rowsUnder(view: ViewTitle, path: readonly string[] = []): Promise<TreeRow[]> {
  return (await treeStep(view, path, 'children')) as TreeRow[];
}

/**
 * Reads the rows under `path` until `done` holds (the views follow the receiver's live feed, and
 * a row may not be there yet); rejects with the last rows read after `timeoutMs`.
 */
export async function untilRows(view: ViewTitle, path: readonly string[], done: (rows: TreeRow[]) => boolean, timeoutMs = 20_000): Promise<TreeRow[]> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const rows = await rowsUnder(view, path);
      if (done(rows)) return rows;
      last = rows;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `the ${view} view never showed what was expected under ${JSON.stringify(path)}: ${last instanceof Error ? last.message : JSON.stringify(last).slice(0, 600)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Brings the row at `path` into view (scrolling the view as a user does). */
export async function revealRow(view: ViewTitle, path: readonly string[]): Promise<void> {
  await treeStep(view, path, 'reveal');
}

/** The list of a view's rows in the workbench's page, for an expression evaluated there. */
export const viewList = (view: ViewTitle): string => `.pane:has(> .pane-header[aria-label^=${JSON.stringify(view)}]) .monaco-list .monaco-list-rows`;

/** The rows under `path` once it shows some: a row's children are read when it is expanded, and drawn when they come. */
export function shownUnder(view: ViewTitle, path: readonly string[]): Promise<TreeRow[]> {
  return untilRows(view, path, (rows) => rows.length > 0);
}

/** Clicks the row at `path` (its command runs, as a click runs it). */
export async function clickRow(view: ViewTitle, path: readonly string[]): Promise<void> {
  await treeStep(view, path, 'click');
}

/** Collapses the row at `path` by its twistie. */
export async function collapseRow(view: ViewTitle, path: readonly string[]): Promise<void> {
  await treeStep(view, path, 'collapse');
}

/** Chooses `item` (its title) from the row's context menu. */
export async function rowMenu(view: ViewTitle, path: readonly string[], item: string): Promise<void> {
  await treeStep(view, path, 'menu', item);
}

/** Clicks the row's inline action titled `item`. */
export async function rowInline(view: ViewTitle, path: readonly string[], item: string): Promise<void> {
  await treeStep(view, path, 'inline', item);
}

/** The tooltip the row shows when the pointer rests on it. */
export async function rowTooltip(view: ViewTitle, path: readonly string[]): Promise<Tooltip> {
  return (await treeStep(view, path, 'hover')) as Tooltip;
}

/**
 * Folds the Agents view back to its roots, as its Collapse All does: a test that expanded rows
 * leaves the view short, and the next one reads it quickly.
 */
export async function collapseAgents(): Promise<void> {
  await vscode.commands.executeCommand('workbench.actions.treeView.hookbench.agents.collapseAll');
}

/** The editor that is active once `act` (a click, a menu item) has opened it. */
export async function editorOpenedBy(
  act: () => Promise<unknown>,
  opened: (editor: vscode.TextEditor) => boolean,
  timeoutMs = 20_000,
): Promise<vscode.TextEditor> {
  const seen = new Promise<vscode.TextEditor>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`no editor opened (active: ${vscode.window.activeTextEditor?.document.uri.toString() ?? 'none'})`));
    }, timeoutMs);
    const sub = vscode.window.onDidChangeActiveTextEditor((editor) => {
      if (!editor || !opened(editor)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(editor);
    });
  });
  await act();
  return seen;
}
