// The inspector in the real workbench: an instance's SQL console opened from the Agents view after
// a webhook, a SELECT run from the editor title's Run button with its rows in the results webview,
// a write refused while the console is read-only and applied through the instance once switched,
// history and export; then the state timeline showing what the second webhook changed.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import type { TimelineView } from '../../src/vscode/inspector/timelineHtml';
import { adminClient, api, resultsShown, withSecret } from './helpers';
import { readWebview, readWorkbenchList, userDoes } from './reporter';
import { clickRow, collapseAgents, editorOpenedBy, rowsUnder, shownUnder, untilRows } from './treeViews';

const SECRET = 'inspector-secret';
const ENTITY = 'inspector-repo';
const REF = { namespace: 'WEBHOOK_AGENT', name: ENTITY };

async function deliver(url: string, event: string, delivery: string, payload: object): Promise<number> {
  const body = JSON.stringify({ repository: { full_name: 'Acme/Inspector' }, ...payload });
  const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
  const response = await fetch(`${url}/webhooks/github/${ENTITY}`, {
    method: 'POST',
    body,
    headers: { ...headers, 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': delivery },
  });
  return response.status;
}

/** The instance's row in the Agents view. */
const INSTANCE = ['webhook-agent', ENTITY];

describe('inspector: SQL console and state timeline', () => {
  after(collapseAgents);

  it('lists the instance’s tables in the Agents view and browses one in the console, rows in the webview', async () => {
    const hookbench = await api();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
    assert.equal(await deliver(url, 'push', 'insp-1', { ref: 'refs/heads/main', pusher: { name: 'zoe' }, commits: [] }), 200);
    await untilRows('Agents', ['webhook-agent'], (rows) => rows.some((row) => row.label === ENTITY));
    assert.ok(
      (await rowsUnder('Agents', INSTANCE)).some((row) => row.label === 'Tables'),
      'the instance has a Tables node',
    );
    const tables = await shownUnder('Agents', [...INSTANCE, 'Tables']);
    assert.ok(
      tables.some((row) => row.label === 'events'),
      `the events table is listed: ${tables.map((row) => row.label).join(', ')}`,
    );
    const columns = await shownUnder('Agents', [...INSTANCE, 'Tables', 'events']);
    assert.equal(columns.find((c) => c.label === 'timestamp')?.description, 'TEXT · not null', 'timestamp: TEXT, not null, no primary key');

    // Clicking a table opens the console, which runs SELECT * on it.
    const opened = await editorOpenedBy(
      () => clickRow('Agents', [...INSTANCE, 'Tables', 'events']),
      (editor) => editor.document.uri.scheme === 'hookbench-sql',
    );
    const uri = opened.document.uri;
    // The results panel, as the user sees it: it shows the rows of the statement the console ran.
    const shown = await resultsShown('SELECT * FROM "events" LIMIT 100');
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), uri.toString());
    assert.equal(vscode.window.activeTextEditor?.document.languageId, 'hookbench-sql', 'the console speaks SQLite');
    assert.match(vscode.window.activeTextEditor!.document.getText(), /^SELECT \* FROM "events" LIMIT 100/);
    assert.equal(shown.error, null, JSON.stringify(shown));
    assert.equal(shown.rows.length, 1);
    assert.ok(shown.columns.includes('payload'));
    assert.match(shown.html, /<td[^>]*>insp-1<\/td>/, 'the webview shows the event row');
  });

  it('runs the statement typed in the console from the editor title’s Run button', async () => {
    await api();
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'hookbench-sql')!;
    await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn });
    const statement = "SELECT id, type, json_extract(payload, '$.pusher.name') AS pusher FROM events";
    await editor.edit((edit) => edit.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), statement));
    await userDoes({ click: '.editor-actions [aria-label^="Run SQL"]' });
    const shown = await resultsShown(statement);
    assert.deepEqual(shown.error === null && shown.rows, [['insp-1', 'push', 'zoe']]);
    assert.match(shown.html, /<th>pusher<\/th>/);
  });

  it('refuses a write while read-only, with the way to allow it, and writes through the instance once switched', async () => {
    const hookbench = await api();
    const uri = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'hookbench-sql')!.document.uri;
    const refused = (await vscode.commands.executeCommand('hookbench.sql.run', uri, 'DELETE FROM events')) as { kind: string; message: string };
    assert.equal(refused.kind, 'error');
    assert.match(refused.message, /^read-only: DELETE is refused/);
    assert.match((await resultsShown('DELETE FROM events')).html, /<div class="error" id="error">read-only: DELETE is refused.*switch it to read-write/s);
    const count = (await vscode.commands.executeCommand('hookbench.sql.run', uri, 'SELECT count(*) FROM events')) as { rows: unknown[][] };
    assert.deepEqual(count.rows, [[1]], 'nothing was deleted');

    assert.equal(await vscode.commands.executeCommand('hookbench.sql.allowWrites', uri, true), 'readWrite');
    const update = "UPDATE events SET title = 'edited in the console' WHERE id = 'insp-1'";
    const written = (await vscode.commands.executeCommand('hookbench.sql.run', uri, update)) as { kind: string; rowsWritten: number };
    assert.deepEqual([written.kind, written.rowsWritten], ['rows', 1]);
    assert.match((await resultsShown(update)).html, /read-write/);
    // The instance's live database holds it: a read taken now sees the changed row.
    const [row] = (await (await adminClient(hookbench)).query(REF.namespace, REF.name, "SELECT title FROM events WHERE id = 'insp-1'")) as { title: string }[];
    assert.equal(row?.title, 'edited in the console');
    assert.equal(await vscode.commands.executeCommand('hookbench.sql.readOnly', uri), 'readOnly');

    // The history as its pick lists it, newest first: each statement and its outcome.
    const picking = vscode.commands.executeCommand('hookbench.sql.history', uri);
    await userDoes({ waitFor: 'History: ' });
    const history = (
      await readWorkbenchList('.quick-input-widget', { name: '.label-name', outcome: '.label-description' }, [
        [update],
        ['DELETE FROM events'],
        ['SELECT count(*) FROM events'],
      ])
    ).map((row) => ({ sql: row['name'], outcome: row['outcome'] ?? '' }));
    await userDoes({ press: ['Escape'] });
    assert.equal(await picking, undefined, 'Escape leaves the console as it was');
    assert.equal(history[0]?.sql, update);
    assert.ok(
      history.some((h) => h.sql === 'DELETE FROM events' && /read-only/.test(h.outcome)),
      JSON.stringify(history),
    );
    const again = (await vscode.commands.executeCommand(
      'hookbench.sql.history',
      uri,
      history.findIndex((h) => h.sql === 'SELECT count(*) FROM events'),
    )) as { rows: unknown[][] };
    assert.deepEqual(again.rows, [[1]], 're-run from history');

    const folder = vscode.workspace.workspaceFolders![0]!.uri;
    const csv = vscode.Uri.joinPath(folder, 'inspector-export.csv');
    await vscode.commands.executeCommand('hookbench.sql.run', uri, 'SELECT id, title FROM events');
    assert.equal(((await vscode.commands.executeCommand('hookbench.sql.exportCsv', uri, csv)) as vscode.Uri).toString(), csv.toString());
    assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(csv)), 'id,title\r\ninsp-1,edited in the console\r\n');
    const json = vscode.Uri.joinPath(folder, 'inspector-export.json');
    await vscode.commands.executeCommand('hookbench.sql.exportJson', uri, json);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(json))), [{ id: 'insp-1', title: 'edited in the console' }]);
  });

  it('shows in the state timeline what the second webhook changed, steps back, and opens a state as JSON', async () => {
    const hookbench = await api();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const url = await hookbench.receiver.ready();
    assert.equal(await deliver(url, 'issues', 'insp-2', { action: 'opened', issue: { number: 7, title: 'Timeline' } }), 200);
    // Open State Timeline, given the instance by its fields as any caller may.
    const view = (await vscode.commands.executeCommand('hookbench.timeline.open', REF)) as TimelineView;
    assert.ok(view, 'the timeline opened');
    assert.ok(view.kind === 'steps', JSON.stringify(view));
    assert.deepEqual(
      view.steps.map((s) => s.eventId),
      ['insp-1', 'insp-2'],
    );
    assert.equal(view.index, 1, 'the newest event is shown first');
    const changes = view.steps[1]!.changes.filter((c) => c.path[0] !== 'lastEventAt');
    assert.deepEqual(changes, [
      { kind: 'changed', path: ['lastEventType'], before: 'push', after: 'issues' },
      { kind: 'changed', path: ['stats', 'total'], before: 1, after: 2 },
      { kind: 'added', path: ['stats', 'byType', 'issues'], after: 1 },
    ]);
    // What its webview shows, read in the workbench once it shows the step.
    const shows = (position: string) =>
      readWebview<string>('Timeline: ', 'document.body.innerHTML', `document.querySelector('#position')?.textContent === ${JSON.stringify(position)}`);
    const newest = await shows('event 2 of 2');
    assert.match(newest, /<tr class="added"><td><code>stats\.byType\.issues<\/code>/);
    assert.match(newest, /event 2 of 2/);

    assert.equal(await vscode.commands.executeCommand('hookbench.timeline.previous'), 0);
    assert.match(await shows('event 1 of 2'), /event 1 of 2/);
    const document = (await vscode.commands.executeCommand('hookbench.timeline.openState', 'after')) as vscode.TextDocument;
    assert.equal(document.languageId, 'json');
    assert.deepEqual(JSON.parse(document.getText()).stats, { total: 1, byType: { push: 1 } });
    // Read-only: a content provider's document, which the editor does not let a user change.
    assert.equal(document.uri.scheme, 'hookbench-state');
  });
});
