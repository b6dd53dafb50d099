// What the screenshot scenes share: the one capture of the window (the launcher takes it), signed
// deliveries to the local receiver, and the rows a scene clicks as a user does.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { schemeFor } from '../../../src/core/signing';
import { readWorkbench, userDoes } from '../reporter';

/** The GitHub secret every scene signs with (one secret: the receiver never restarts between scenes). */
export const SECRET = 'readme-secret';

/**
 * Asks the launcher to capture the window as HOOKBENCH_SCREENSHOTS_DIR/NAME.png, once nothing but
 * the scene is on screen: no notification, no secondary side bar, and `shown` (a webview read in
 * the workbench once it shows the scene's page, if any) resolved.
 */
export async function capture(name: string, shown?: Promise<unknown>): Promise<void> {
  const report = process.env['HOOKBENCH_TEST_REPORT'];
  const dir = process.env['HOOKBENCH_SCREENSHOTS_DIR'];
  if (!report || !dir) throw new Error('run by scripts/screenshots.mjs');
  await vscode.commands.executeCommand('notifications.clearAll');
  await vscode.commands.executeCommand('notifications.hideList');
  // The secondary side bar (Chat, in newer VS Codes) is not Hookbench's.
  await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
  await shown;
  // Let the workbench finish drawing (trees, webview) before the capture.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const png = path.join(dir, `${name}.png`);
  fs.rmSync(png, { force: true });
  fs.appendFileSync(report, `screenshot: ${name}\n`);
  for (const started = Date.now(); !fs.existsSync(png);) {
    if (Date.now() - started > 15_000) throw new Error(`no screenshot ${png}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Posts a signed GitHub delivery to the receiver; throws unless it is answered as `expected`. */
export async function deliver(
  url: string,
  entity: string,
  event: string,
  delivery: string,
  payload: object,
  { secret = SECRET, expected = 200 } = {},
): Promise<void> {
  const body = JSON.stringify(payload);
  const { headers } = schemeFor('github').sign({ secret, body: Buffer.from(body) });
  const response = await fetch(`${url}/webhooks/github/${entity}`, {
    method: 'POST',
    body,
    headers: { ...headers, 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': delivery },
  });
  if (response.status !== expected) throw new Error(`${delivery} was answered ${response.status}, not ${expected}: ${await response.text()}`);
}

/** A row of a tree view at `level` whose accessible label holds `label`. */
export const row = (level: number, label: string) => `.monaco-list-row[aria-level="${level}"][aria-label*=${JSON.stringify(label)}]`;

/** The header of the Hookbench side bar's view titled `title` (clicking it collapses or expands the view). */
export const viewHeader = (title: string) => `.pane-header[aria-label^=${JSON.stringify(title)}]`;

/** The row at `index` (0 first) of the Hookbench side bar's view titled `title`. */
export const rowOfView = (title: string, index: number) => `.pane:has(> ${viewHeader(title)}) .monaco-list-row[data-index="${index}"]`;

/** A workbench with no editor and no panel open, the Hookbench side bar shown. */
export async function clearStage(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await vscode.commands.executeCommand('workbench.action.closePanel');
  await vscode.commands.executeCommand('workbench.view.extension.hookbench');
}

/**
 * Widens the side bar by `steps` (narrows it when negative) at the expense of the active editor,
 * so that the views' descriptions show; each scene that widens it narrows it back when done.
 */
export async function widenSideBar(steps: number): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
  const command = steps > 0 ? 'workbench.action.decreaseViewWidth' : 'workbench.action.increaseViewWidth';
  for (let i = 0; i < Math.abs(steps); i++) await vscode.commands.executeCommand(command);
}

/** Folds (`open` false) or unfolds a view of the Hookbench side bar by clicking its header, as a user does, unless it already is. */
export async function setViewOpen(title: string, open: boolean): Promise<void> {
  const expanded = `document.querySelector(${JSON.stringify(viewHeader(title))})?.getAttribute('aria-expanded') === ${JSON.stringify(String(open))}`;
  if (await readWorkbench<boolean>(expanded)) return;
  await userDoes({ click: viewHeader(title) });
  await readWorkbench('true', expanded);
}
