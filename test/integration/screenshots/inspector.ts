// docs/inspector.md's scenes, on the README scene's acme-widgets (three stored events): its SQL
// console with a query and its rows, the Agents view showing its tables beside it; then its state
// timeline showing what the newest webhook changed.
import * as vscode from 'vscode';
import type { TimelineView } from '../../../src/vscode/inspector/timelineHtml';
import { resultsShown } from '../helpers';
import { readWebview, userDoes } from '../reporter';
import { clickRow, editorOpenedBy, revealRow, untilRows } from '../treeViews';
import { capture, clearStage, row } from './stage';

const ENTITY = 'acme-widgets';
const INSTANCE = ['webhook-agent', ENTITY];

const QUERY = `SELECT type, title,
  time(timestamp) AS at
FROM events
ORDER BY timestamp
`;

export async function consoleScene(): Promise<void> {
  await clearStage();
  await vscode.commands.executeCommand('workbench.actions.treeView.hookbench.agents.collapseAll');
  await untilRows('Agents', ['webhook-agent'], (rows) => rows.some((r) => r.label === ENTITY));
  // A click on the table: the console opens on SELECT * and runs it; then a query of one's own.
  const opened = await editorOpenedBy(
    () => clickRow('Agents', [...INSTANCE, 'Tables', 'events']),
    (e) => e.document.uri.scheme === 'hookbench-sql',
  );
  await resultsShown('SELECT * FROM "events" LIMIT 100');
  const uri = opened.document.uri;
  await vscode.commands.executeCommand('workbench.actions.treeView.hookbench.agents.collapseAll');
  const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString())!;
  await editor.edit((edit) => edit.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), QUERY));
  const outcome = (await vscode.commands.executeCommand('hookbench.sql.run', uri)) as { kind: string; rows?: unknown[][] };
  if (outcome.kind !== 'rows' || outcome.rows?.length !== 3) throw new Error(`the query did not answer the three events: ${JSON.stringify(outcome)}`);
  // The Agents view beside it, the instance's Tables open, as a user sees them.
  await userDoes({ click: row(1, 'webhook-agent') });
  await userDoes({ click: row(2, ENTITY) });
  await userDoes({ click: row(3, 'Tables') });
  const shown = await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn });
  const end = shown.document.lineAt(shown.document.lineCount - 1).range.end;
  shown.selection = new vscode.Selection(end, end);
  // Room for the results' columns: the console's group narrower, the results' wider.
  for (let i = 0; i < 2; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewWidth');
  await capture('inspector-console', resultsShown(QUERY.trim()));
}

export async function timelineScene(): Promise<void> {
  await clearStage();
  // The Agents view as it opens: the console scene's Tables folded away.
  await vscode.commands.executeCommand('workbench.actions.treeView.hookbench.agents.collapseAll');
  await revealRow('Agents', INSTANCE);
  const view = (await vscode.commands.executeCommand('hookbench.timeline.open', { namespace: 'WEBHOOK_AGENT', name: ENTITY })) as TimelineView | undefined;
  if (view?.kind !== 'steps' || view.steps.length !== 3) throw new Error(`the timeline does not show the three events: ${JSON.stringify(view).slice(0, 300)}`);
  await capture('inspector-timeline', readWebview('Timeline: ', 'true', `document.querySelector('#position')?.textContent === 'event 3 of 3'`));
}
