// The Deliveries view and the delivery document as a user works with them (docs/explorer.md,
// "Deliveries"): rows clicked and instances expanded while webhooks keep arriving, with no error
// and the clicked row's document each time; the filter, its "filtered: …" title and Clear Filter;
// Edit & Resend from a delivery's document, sent signed and verified.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import { adminClient, api, until, withSecret } from './helpers';
import { readWorkbench, reportFigure, userDoes } from './reporter';
import { clickRow, collapseAgents, editorOpenedBy, shownUnder, untilRows, viewList, type TreeRow } from './treeViews';

const SECRET = 'deliveries-secret';

function push(entity: string, delivery: string, pusher = 'zoe', secret = SECRET) {
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: `acme/${entity}` }, pusher: { name: pusher }, commits: [] });
  const { headers } = schemeFor('github').sign({ secret, body: Buffer.from(body) });
  return { body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery } };
}

function post(url: string, entity: string, delivery: string, pusher?: string, secret?: string): Promise<Response> {
  const p = push(entity, delivery, pusher, secret);
  return fetch(`${url}/webhooks/github/${encodeURIComponent(entity)}`, { method: 'POST', body: p.body, headers: p.headers });
}

/** The error notifications VS Code shows (its notification list, as the bell opens it). */
async function errorNotifications(): Promise<string[]> {
  await vscode.commands.executeCommand('notifications.showList');
  const shown = await readWorkbench<string[]>(
    `[...document.querySelectorAll('.notifications-center .notification-list-item')].filter((item) => item.querySelector('.codicon-error')).map((item) => item.querySelector('.notification-list-item-message')?.textContent ?? '')`,
  );
  await vscode.commands.executeCommand('notifications.hideList');
  return shown;
}

/** What the Deliveries view's title shows beside its name ("filtered: …"). */
function deliveriesTitle(): Promise<string> {
  return readWorkbench<string>(`document.querySelector('.pane-header[aria-label^="Deliveries"]')?.textContent ?? ''`);
}

/**
 * Filters Deliveries from the view's title bar, typed into its prompt as a user types it: Enter
 * once the prompt, still focused, shows the text. The prompt closes, as VS Code's prompts do, when
 * the focus moves away from it: nothing the test before started may still open an editor (each of
 * its clicks waited for the editor it opened).
 */
async function filterFromTitleBar(text: string): Promise<void> {
  const filterButton = `.pane:has(> .pane-header[aria-label^="Deliveries"]) .pane-header .action-label[aria-label^="Filter Deliveries"]`;
  await userDoes({ click: filterButton });
  await userDoes({ waitFor: 'Filter Deliveries', type: text, press: ['Enter'] });
  await until(deliveriesTitle, (title) => title.includes(`filtered: ${text}`), 'the Deliveries title says the filter', 10_000);
}

describe('Deliveries under traffic, filtered, opened and sent again', () => {
  afterEach(async () => {
    await collapseAgents();
    await vscode.commands.executeCommand('hookbench.deliveries.clearFilter');
  });

  before(async () => {
    // Title-bar actions drawn at all times, as on a focused view (the headless window never has focus).
    await vscode.workspace.getConfiguration('workbench').update('view.alwaysShowHeaderActions', true, vscode.ConfigurationTarget.Global);
  });

  it('opens the clicked delivery and expands instances while 50 webhooks/s arrive, with no error', async function () {
    this.timeout(180_000);
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
    const expandable = Array.from({ length: 6 }, (_, i) => `rush-${i}`);
    for (const entity of expandable) assert.equal((await post(url, entity, `rush-seed-${entity}`)).status, 200);
    await untilRows('Agents', ['webhook-agent'], (rows) => expandable.every((e) => rows.some((r) => r.label === e)));
    await vscode.commands.executeCommand('notifications.clearAll');
    // 50 a second, for as long as the user works (at most 60 s), to the entities being expanded.
    let sent = 0;
    const failed: string[] = [];
    const started = Date.now();
    // Each tick sends what the rate owes by now: a busy machine's late timer does not lower the rate.
    const load = setInterval(() => {
      while (sent < (Date.now() - started) / 20) {
        const entity = expandable[sent % expandable.length]!;
        post(url, entity, `rush-${sent++}`).then(
          (r) => r.status === 200 || failed.push(`${entity}: ${r.status}`),
          (e: Error) => failed.push(e.message),
        );
      }
    }, 20);
    // While it runs the list moves: a click waits for it to have just moved.
    let moving = true;
    const stop = setTimeout(() => {
      clearInterval(load);
      moving = false;
    }, 60_000);
    let clicks = 0;
    try {
      // The list redraws at most once a second: until it does, its newest rows are an earlier
      // test's. Read without scrolling (a wheel would move row 0 out of the list's DOM).
      const topRows = `Array.from(document.querySelectorAll(${JSON.stringify(`${viewList('Deliveries')} > .monaco-list-row`)})).filter((r) => Number(r.dataset.index) < 3)`;
      await readWorkbench<number>(`(${topRows}).length`, `(${topRows}).length === 3 && (${topRows}).every((r) => r.textContent.includes('rush-'))`);
      for (let i = 0; i < 2 * expandable.length; i++) {
        // No tab open, so the click opens one even when it lands on the delivery the last click opened.
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        // A row near the top, clicked as the list moves down under it (a row lives about 2 s in
        // the newest 100 at this rate): its document opens, the document of the row it landed on.
        const row = `${viewList('Deliveries')} > .monaco-list-row[data-index="${i % 3}"]`;
        // A press and a release that the list's move puts on two rows is a click on neither (VS
        // Code's lists open on `click`): the click comes right after the list moved, as a person
        // clicks a moving list (`still`).
        const editor = await editorOpenedBy(
          () => userDoes({ click: row, ...(moving ? { still: viewList('Deliveries') } : {}) }),
          (e) => e.document.uri.scheme === 'hookbench',
        ).catch(async (error: Error) => {
          throw new Error(`click ${i + 1}: ${error.message}; error notifications: ${JSON.stringify(await errorNotifications())}`);
        });
        // A delivery of the traffic, read from the receiver: its tab, its request line, its answer.
        const entity = /\/push · (rush-\d) · \d\d:\d\d:\d\d\.http$/.exec(editor.document.uri.path)?.[1];
        assert.ok(entity, editor.document.uri.path);
        assert.equal(editor.document.languageId, 'hookbench-http');
        assert.match(editor.document.getText(), new RegExp(`^POST /webhooks/github/${entity}\n[^]*\n### 200 · `));
        clicks++;
        // Every other click, an instance expanded for the first time as its events keep coming.
        if (i % 2 === 1) {
          const state = await shownUnder('Agents', ['webhook-agent', expandable[(i - 1) / 2]!, 'State']);
          assert.ok(
            state.some((r) => r.label === 'lastEventType'),
            JSON.stringify(state),
          );
        }
      }
    } finally {
      clearInterval(load);
      clearTimeout(stop);
    }
    reportFigure(
      'deliveries view: 12 clicks and 6 first expansions under 50 webhooks/s',
      `${((Date.now() - started) / 1000).toFixed(1)} s, ${sent} webhooks sent`,
    );
    assert.ok(sent >= 250, `the load ran (${sent} sent)`);
    assert.deepEqual(failed.slice(0, 5), []);
    assert.equal(clicks, 2 * expandable.length);
    assert.deepEqual(await errorNotifications(), []);
  });

  it('filters by status and by a word, says so in its title, and clears', async () => {
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
    assert.equal((await post(url, 'filter-ok', 'filter-1')).status, 200);
    assert.equal((await post(url, 'filter-ok', 'filter-1')).status, 200);
    assert.equal((await post(url, 'filter-bad', 'filter-2', 'zoe', 'not-the-secret')).status, 401);
    await untilRows('Deliveries', [], (rows) => rows.some((r) => r.label === 'push · filter-bad'));
    await filterFromTitleBar('status:4xx filter');
    // Only 401s (and "Show 100 more" while the view holds a full page: more to look through).
    const deliveries = (rows: TreeRow[]) => rows.filter((r) => r.label !== 'Show 100 more');
    const rejected = await untilRows('Deliveries', [], (rows) => deliveries(rows).length > 0 && deliveries(rows).every((r) => /^4\d\d /.test(r.description)));
    assert.ok(
      rejected.some((r) => r.label === 'push · filter-bad' && /^401 bad signature \(mismatch\) · outside · github/.test(r.description)),
      JSON.stringify(rejected),
    );
    assert.match(await deliveriesTitle(), /filtered: status:4xx filter/);
    // A word alone: the duplicate is one of the two accepted ones.
    await vscode.commands.executeCommand('hookbench.deliveries.filter', 'outcome:duplicate filter-ok');
    const duplicates = await untilRows('Deliveries', [], (rows) => deliveries(rows).length === 1 && rows[0]!.label === 'push · filter-ok');
    assert.match(duplicates[0]!.description, /^200 duplicate · /);
    // Clear Filter, from the title bar: everything again, and the title says nothing more.
    await userDoes({ click: `.pane:has(> .pane-header[aria-label^="Deliveries"]) .pane-header .action-label[aria-label^="Clear Filter"]` });
    await untilRows('Deliveries', [], (rows) => rows.some((r) => r.label === 'push · filter-bad') && rows.some((r) => /^200 verified/.test(r.description)));
    assert.doesNotMatch(await deliveriesTitle(), /filtered/);
    // Clear Deliveries: the list empties, and what comes next shows.
    await vscode.commands.executeCommand('hookbench.deliveries.clear');
    await untilRows('Deliveries', [], (rows) => deliveries(rows).length === 0);
    assert.match(await deliveriesTitle(), /cleared \d\d:\d\d:\d\d/);
    // The empty view says why it is empty, and how to see everything (not "No deliveries yet").
    const welcome = `document.querySelector('.pane:has(> .pane-header[aria-label^="Deliveries"]) .welcome-view-content')?.textContent ?? ''`;
    const said = await readWorkbench<string>(welcome, `(${welcome}).includes('since Clear')`);
    assert.match(said, /No delivery has arrived since Clear/);
    assert.doesNotMatch(said, /No deliveries yet/);
    assert.equal((await post(url, 'filter-after', 'filter-3')).status, 200);
    const after = await untilRows('Deliveries', [], (rows) => deliveries(rows).length === 1);
    assert.equal(after[0]!.label, 'push · filter-after');
    await vscode.commands.executeCommand('hookbench.deliveries.clearFilter');
  });

  it('opens a delivery as one document, and Edit & Resend sends the edited payload signed and verified', async function () {
    this.timeout(90_000);
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
    const client = await adminClient(hookbench);
    assert.equal((await post(url, 'resend-me', 'resend-1')).status, 200);
    const rows: TreeRow[] = await untilRows('Deliveries', [], (list) => list.some((r) => r.label === 'push · resend-me'));
    assert.match(rows.find((r) => r.label === 'push · resend-me')!.description, /^200 verified · outside · github · /);
    const editor = await editorOpenedBy(
      () => clickRow('Deliveries', ['push · resend-me']),
      (e) => e.document.uri.scheme === 'hookbench',
    );
    const text = editor.document.getText();
    assert.match(editor.document.uri.path, /\/push · resend-me · \d\d:\d\d:\d\d\.http$/);
    assert.equal(editor.document.languageId, 'hookbench-http');
    assert.match(text, /^POST \/webhooks\/github\/resend-me\n/);
    assert.match(text, /\nx-hub-signature-256: \[redacted\]\n/i);
    assert.doesNotMatch(text, /sha256=/);
    assert.match(text, /\n {2}"pusher": \{\n {4}"name": "zoe"\n {2}\}/);
    assert.match(text, /\n### 200 · [\d.]+ ms · valid\n# received .* · github · push · entity resend-me/);
    // The document's title bar: Edit & Resend opens a draft of it.
    const draft = await editorOpenedBy(
      () => userDoes({ click: '.editor-actions .action-label[aria-label^="Edit & Resend"]' }),
      (e) => e.document.uri.scheme === 'hookbench-draft',
    );
    assert.match(draft.document.uri.path, /github push · resend-me\.json$/);
    const edit = new vscode.WorkspaceEdit();
    const at = draft.document.getText().indexOf('"zoe"');
    assert.ok(at > 0, draft.document.getText());
    edit.replace(draft.document.uri, new vscode.Range(draft.document.positionAt(at), draft.document.positionAt(at + '"zoe"'.length)), '"ada"');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const result = (await vscode.commands.executeCommand('hookbench.draft.send', draft.document.uri)) as { status: number } | undefined;
    assert.equal(result?.status, 200);
    const [sentAgain] = await until(
      () => client.deliveries(5),
      (list) => list[0]?.requestHeaders['x-github-delivery'] !== 'resend-1' && list[0]?.entity === 'resend-me',
      'the resent delivery',
    );
    assert.equal(sentAgain!.verification, 'valid');
    assert.equal(sentAgain!.source?.kind, 'send');
    const details = await client.delivery(sentAgain!.id);
    assert.equal(JSON.parse(details.requestBody).pusher.name, 'ada');
    const shown = await untilRows('Deliveries', [], (list) => list[0]?.label === 'push · resend-me' && /^200 verified · local send/.test(list[0].description));
    assert.match(shown[0]!.description, /^200 verified · local send · github/);
  });
});
