// docs/inspector.md's scenes, on the README scene's acme-widgets (three stored events): its SQL
// console with a query and its rows, the Agents view showing its tables beside it; then its state
// timeline showing what the newest webhook changed.
import * as vscode from 'vscode';
import type { HookbenchApi } from '../helpers';
import type { AgentNode } from '../../../src/vscode/views/agentsTree';
import type { TimelineView } from '../../../src/vscode/inspector/timelineHtml';
import { instancesNow, resultsShown, untilTree } from '../helpers';
import { readWebview, userDoes } from '../reporter';
import { capture, clearStage, row } from './stage';

const ENTITY = 'acme-widgets';

async function instanceNode(api: HookbenchApi): Promise<Extract<AgentNode, { kind: 'instance' }>> {
  const nodes = await untilTree(api, () => instancesNow(api), (list) => list.some((n) => n.kind === 'instance' && n.name === ENTITY));
  return nodes.find((n): n is Extract<AgentNode, { kind: 'instance' }> => n.kind === 'instance' && n.name === ENTITY)!;
}

const QUERY = `SELECT type, title,
  time(timestamp) AS at
FROM events
ORDER BY timestamp
`;

export async function consoleScene(api: HookbenchApi): Promise<void> {
  await clearStage();
  await vscode.commands.executeCommand('workbench.actions.treeView.hookbench.agents.collapseAll');
  const instance = await instanceNode(api);
  const tables = (await api.trees.agents.getChildren(instance)).find((n) => n.kind === 'tables');
  const events = tables && (await api.trees.agents.getChildren(tables)).find((n) => n.kind === 'table' && n.table === 'events');
  if (!events) throw new Error(`${ENTITY} lists no events table`);
  // As a click on the table does: the console opens on SELECT * and runs it; then a query of one's own.
  const uri = (await vscode.commands.executeCommand('hookbench.sql.open', events)) as vscode.Uri;
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

export async function timelineScene(api: HookbenchApi): Promise<void> {
  await clearStage();
  // The Agents view as it opens: the console scene's Tables folded away.
  await vscode.commands.executeCommand('workbench.actions.treeView.hookbench.agents.collapseAll');
  const instance = await instanceNode(api);
  await api.views['hookbench.agents'].reveal(instance, { select: true, focus: false });
  const view = (await vscode.commands.executeCommand('hookbench.timeline.open', instance)) as TimelineView | undefined;
  if (view?.kind !== 'steps' || view.steps.length !== 3) throw new Error(`the timeline does not show the three events: ${JSON.stringify(view).slice(0, 300)}`);
  await capture('inspector-timeline', readWebview('Timeline: ', 'true', `document.querySelector('#position')?.textContent === 'event 3 of 3'`));
}
