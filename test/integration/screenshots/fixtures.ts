// docs/fixtures.md's scene: the README scene's three accepted acme-widgets deliveries selected in
// the Deliveries view (click, Shift+click) and saved with Save as Fixture as a set, the newest
// fixture open, and the set run by Run Fixtures with state checks, its results in the
// "Hookbench Fixtures" output.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readWorkbench, userDoes } from '../reporter';
import { viewList } from '../treeViews';
import { capture, clearStage, rowOfView, widenSideBar } from './stage';

export async function fixturesScene(): Promise<void> {
  await clearStage();
  // The Deliveries view, newest first: the forged push (401), acme/gadgets, then acme/widgets' issue, pull request and push.
  await userDoes({ click: rowOfView('Deliveries', 2) });
  await userDoes({ click: rowOfView('Deliveries', 4), modifiers: ['Shift'] });
  // The rows selected, as the view shows them: "200 POST …", "github · acme-widgets · …".
  const selected = await readWorkbench<{ label: string; description: string }[]>(
    `[...document.querySelectorAll(${JSON.stringify(`${viewList('Deliveries')} > .monaco-list-row[aria-selected="true"]`)})].map((row) => ({ label: row.querySelector('.label-name')?.textContent ?? '', description: row.querySelector('.label-description')?.textContent ?? '' }))`,
  );
  if (selected.length !== 3 || selected.some((d) => !d.description.includes('acme-widgets') || !d.label.startsWith('200 ')))
    throw new Error(`the selection is not acme-widgets' three deliveries: ${JSON.stringify(selected)}`);
  // Save as Fixture on the selection, as its context menu runs it (the set's name given, not typed).
  const written = await vscode.commands.executeCommand<string[]>('hookbench.delivery.saveFixture', undefined, undefined, {
    name: 'acme-widgets',
    overwrite: true,
  });
  if (written?.length !== 3) throw new Error(`Save as Fixture wrote ${JSON.stringify(written)}`);
  // The newest fixture, the one with an expected state (the clicks opened a delivery: closed).
  await vscode.window.showTextDocument(vscode.Uri.file(written[2]!), { preview: false });
  await vscode.commands.executeCommand('workbench.action.closeOtherEditors');
  const outcome = await vscode.commands.executeCommand<{ passed: number; failed: number }>('hookbench.fixtures.run', {
    path: path.dirname(written[0]!),
    expectState: true,
  });
  if (outcome?.passed !== 3) throw new Error(`the set did not pass: ${JSON.stringify(outcome)}`);
  // The output just tall enough for its lines, the fixture above it down to its expected state.
  await widenSideBar(3);
  for (let i = 0; i < 2; i++) await vscode.commands.executeCommand('workbench.action.increaseViewHeight');
  await capture('fixtures');
  await widenSideBar(-3);
  await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
  for (let i = 0; i < 2; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewHeight');
}
