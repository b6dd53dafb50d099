// The Bindings view in the real workbench: the receiver serves the bindings fixture worker (KV, D1,
// R2, a queue, a workflow, a Durable Object), data goes in over HTTP, and after Refresh the view
// shows the KV keys, the R2 objects and the queue's backlog; the D1 database opens in the SQL
// console, read-only, with its rows in the results webview.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, resultsShown, serveWorkerEntry, startReceiver, until, type HookbenchApi } from './helpers';
import { requestScreenshot, userDoes } from './reporter';
import { clickRow, editorOpenedBy, revealRow, rowsUnder, shownUnder, untilRows, type TreeRow } from './treeViews';

const extensionRoot = () => vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath;
const fixture = () => path.join(extensionRoot(), 'test', 'fixtures', 'workers', 'bindings');

async function put(url: string, method: string, route: string, body: string, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(`${url}${route}`, { method, body, headers });
  assert.ok(response.status < 300, `${method} ${route}: ${response.status} ${await response.text()}`);
}

/** A binding's kind as the view names it (a root's description begins with it). */
const KINDS: Record<string, string> = {
  'KV namespace': 'kv',
  'D1 database': 'd1',
  'R2 bucket': 'r2',
  queue: 'queue',
  workflow: 'workflow',
  'Durable Object alarms': 'durableObject',
};
const kindOf = (row: TreeRow) => KINDS[row.description.split(' · ')[0]!] ?? row.description;

/** The labels and descriptions under a binding, as the Bindings view shows them. */
async function childrenOf(kind: string, name: string): Promise<TreeRow[]> {
  const roots = await rowsUnder('Bindings');
  assert.ok(
    roots.some((row) => row.label === name && kindOf(row) === kind),
    `the view has the ${kind} binding ${name}`,
  );
  return shownUnder('Bindings', [name]);
}

describe('bindings view: what a worker’s bindings hold', () => {
  let hookbench: HookbenchApi;
  let url: string;

  before(async function () {
    this.timeout(60_000);
    hookbench = await api();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await startReceiver();
    // The entry alone: serve finds the wrangler config beside it (the workspace has none).
    url = await serveWorkerEntry(hookbench, path.join(fixture(), 'src', 'index.ts'));
  });

  after(async function () {
    this.timeout(60_000);
    await serveWorkerEntry(hookbench, undefined);
  });

  it('shows KV keys, R2 objects and the queue backlog after data arrives over HTTP', async () => {
    await put(url, 'PUT', '/kv?key=customer%3Aacme', '{"plan":"pro"}');
    await put(url, 'PUT', `/kv?key=${encodeURIComponent('../not-a-path')}`, 'x');
    await put(url, 'PUT', '/r2?key=invoices%2F2026-11.pdf', '%PDF-1.7 …', { 'content-type': 'application/pdf' });
    await put(url, 'POST', '/queue?delay=3600', '{"job":"later"}');
    await put(url, 'POST', '/queue', '{"retry":true}');
    await put(url, 'POST', '/d1', JSON.stringify({ sql: 'CREATE TABLE orders (id TEXT PRIMARY KEY, total INTEGER)' }));
    await put(url, 'POST', '/d1', JSON.stringify({ sql: "INSERT INTO orders VALUES ('o-1', 10), ('o-2', 25)" }));
    await put(url, 'POST', '/workflow?id=order-1', '');
    await put(url, 'POST', '/alarm?name=reminder-1', '');

    await vscode.commands.executeCommand('hookbench.views.refresh');
    const roots = (await untilRows('Bindings', [], (rows) => rows.some((row) => row.label === 'CACHE'))).map((row) => `${kindOf(row)}:${row.label}`);
    assert.deepEqual(roots, ['kv:CACHE', 'd1:DB', 'r2:FILES', 'queue:jobs', 'queue:jobs-dlq', 'workflow:order-flow', 'durableObject:REMINDERS']);
    const keys = await childrenOf('kv', 'CACHE');
    assert.deepEqual(
      keys.map((k) => k.label),
      ['../not-a-path', 'customer:acme'],
    );
    assert.match(keys[1]!.description, /"from":"test"/);
    // Live, without Refresh: a key the worker puts now shows under the opened binding.
    await put(url, 'PUT', '/kv?key=customer%3Aglobex', '{"plan":"free"}');
    await until(
      () => shownUnder('Bindings', ['CACHE']),
      (rows) => rows.some((row) => row.label === 'customer:globex'),
      'the new KV key to show without Refresh',
    );
    const objects = await childrenOf('r2', 'FILES');
    assert.deepEqual(
      objects.map((o) => [o.label, o.description.split(' · ')[0]]),
      [['invoices/2026-11.pdf', '12 B']],
    );
    // The retried message is retried at once by the consumer, then waits an hour: refresh until then.
    const queue = await until(
      async () => {
        await vscode.commands.executeCommand('hookbench.views.refresh');
        return childrenOf('queue', 'jobs');
      },
      (children) => children[0]?.label === 'Backlog: 2' && /1 retried/.test(children[0].description),
      'the queue to show its backlog with one retried message',
    );
    assert.match(queue[0]!.description, /^2 delayed · 0 in flight · 1 retried$/);
    assert.deepEqual(
      queue.slice(2).map((m) => m.description.split(' · ')[0]),
      ['0 retries', '1 retry'],
    );
    const workflow = await until(
      async () => {
        await vscode.commands.executeCommand('hookbench.views.refresh');
        return childrenOf('workflow', 'order-flow');
      },
      // A run parked on waitForEvent reads `running`, as Miniflare's status() says (Cloudflare says `waiting`).
      (children) => children[0]?.description === 'running · 2 steps',
      'the workflow to wait for its event',
    );
    assert.equal(workflow[0]!.label, 'order-1');
    const alarms = await childrenOf('durableObject', 'REMINDERS');
    assert.deepEqual(
      alarms.map((a) => a.label),
      ['reminder-1'],
    );
    assert.match(alarms[0]!.description, /^alarm in (59|60) min$/);

    // The KV value opens read-only, by its key: from a script, and by a click on its row.
    const valueUri = (await vscode.commands.executeCommand('hookbench.bindings.openValue', { binding: 'CACHE', key: 'customer:acme' })) as vscode.Uri;
    assert.equal((await vscode.workspace.openTextDocument(valueUri)).getText(), '{"plan":"pro"}');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const clicked = await editorOpenedBy(
      () => clickRow('Bindings', ['CACHE', 'customer:acme']),
      (editor) => editor.document.uri.scheme === 'hookbench-kv',
    );
    assert.equal(clicked.document.getText(), '{"plan":"pro"}');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens the SQL console on the D1 database, read-only, and browses a table', async () => {
    const tables = await childrenOf('d1', 'DB');
    assert.deepEqual(
      tables.map((t) => [t.label, t.description]),
      [['orders', '2 columns']],
    );
    // Clicking a table opens the console, which runs SELECT * on it.
    const opened = await editorOpenedBy(
      () => clickRow('Bindings', ['DB', 'orders']),
      (editor) => editor.document.uri.scheme === 'hookbench-sql',
    );
    const uri = opened.document.uri;
    const shown = await resultsShown('SELECT * FROM "orders" LIMIT 100');
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), uri.toString());
    assert.match(vscode.window.activeTextEditor!.document.getText(), /^SELECT \* FROM "orders" LIMIT 100/);
    // The results panel of the D1 console, as the user sees it.
    assert.equal(shown.error, null, JSON.stringify(shown));
    assert.deepEqual(shown.rows, [
      ['o-1', '10'],
      ['o-2', '25'],
    ]);
    assert.match(shown.title, /DB \(D1 database\)/);

    const refused = (await vscode.commands.executeCommand('hookbench.sql.run', uri, 'DELETE FROM orders')) as { kind: string; message?: string };
    assert.equal(refused.kind, 'error');
    assert.match(refused.message!, /read-only/i);
    const count = (await vscode.commands.executeCommand('hookbench.sql.run', uri, 'SELECT count(*) FROM orders')) as { kind: string; rows?: unknown[][] };
    assert.deepEqual(count.rows, [[2]], 'the refused DELETE changed nothing');

    // For docs/explorer.md: the Bindings view expanded beside the D1 console and its results, the
    // other views' sections collapsed for room (by their headers, as a user does) and opened again after.
    await vscode.commands.executeCommand('hookbench.bindings.focus');
    const sections = ['Deliveries', 'Outbound'];
    for (const section of sections) await userDoes({ click: `.pane-header[aria-label^="${section}"]` });
    // Each binding expanded as the user expands it (the view was just laid out again: it may not hold the roots yet), the first one at the top.
    for (const name of ['order-flow', 'jobs', 'FILES', 'DB', 'CACHE']) await untilRows('Bindings', [name], () => true);
    await revealRow('Bindings', ['CACHE']);
    await vscode.commands.executeCommand('hookbench.sql.run', uri, 'SELECT * FROM orders');
    await vscode.commands.executeCommand('notifications.clearAll');
    await resultsShown('SELECT * FROM orders');
    await requestScreenshot('bindings-view', extensionRoot());
    for (const section of sections) await userDoes({ click: `.pane-header[aria-label^="${section}"]` });
  });
});
