// Hookbench's tabs across a window reload and a restart of code-server, in the real workbench: a
// payload draft edited, an instance's SQL console with a statement run and its results beside it,
// and the instance's state timeline stepped back; the launcher reloads the window, then restarts
// code-server and reloads again (as after restarting `npm start`), and the suite runs again in
// each new window, where every tab is back with what it showed and the draft with its edit.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import type { TimelineView } from '../../src/vscode/inspector/timelineHtml';
import { adminClient, api, resultsShown, until, withSecret } from './helpers';
import { readWebview, readWorkbench, reloadPhase, reloadWorkbench, reportFigure } from './reporter';

const SECRET = 'reload-secret';
const ENTITY = 'reload-repo';
const REF = { namespace: 'WEBHOOK_AGENT', name: ENTITY };
const EDITED = { ref: 'refs/heads/edited-before-the-reload', repository: { full_name: 'Acme/Reload' }, pusher: { name: 'ana' }, commits: [] };
const STATEMENT = 'SELECT id, type FROM events ORDER BY id';
const ROWS = [
  ['reload-1', 'push'],
  ['reload-2', 'issues'],
];

async function deliver(url: string, event: string, delivery: string, payload: object): Promise<number> {
  const body = JSON.stringify({ repository: { full_name: 'Acme/Reload' }, ...payload });
  const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
  const response = await fetch(`${url}/webhooks/github/${ENTITY}`, {
    method: 'POST',
    body,
    headers: { ...headers, 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': delivery },
  });
  return response.status;
}

/** The text tabs of a scheme, in every group. */
const textTabs = (scheme: string) =>
  vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .flatMap((tab) => (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === scheme ? [tab.input.uri] : []));

/** What the timeline webview shows once it shows `position`: its page, and whether its After column fits the panel. */
function timelineShown(position: string): Promise<{ html: string; afterFits: boolean }> {
  const read = `({ html: document.body.innerHTML, afterFits: document.querySelector('#diff thead th:nth-child(4)').getBoundingClientRect().right <= document.documentElement.clientWidth })`;
  return readWebview(
    'Timeline: ',
    read,
    `document.querySelector('#position')?.textContent === ${JSON.stringify(position)} && document.querySelector('#diff') !== null`,
  );
}

/** No editor of the workbench says its file was not found, as a person looking at it would read it. */
async function noneNotFound(): Promise<void> {
  const shown = await readWorkbench<string>('document.querySelector(".monaco-workbench").innerText');
  assert.doesNotMatch(shown, /Create File|could not be opened/, 'no tab says its file was not found');
}

/** Shows the tab whose webview is `viewType`, as a person clicks it (a webview in a tab behind another is not drawn). */
async function showWebviewTab(viewType: string): Promise<void> {
  for (const group of vscode.window.tabGroups.all) {
    const index = group.tabs.findIndex((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith(viewType));
    if (index < 0) continue;
    const focus = ['workbench.action.focusFirstEditorGroup', 'workbench.action.focusSecondEditorGroup', 'workbench.action.focusThirdEditorGroup'][
      group.viewColumn - 1
    ];
    if (focus) await vscode.commands.executeCommand(focus);
    await vscode.commands.executeCommand('workbench.action.openEditorAtIndex', index);
    return;
  }
}

/** Every Hookbench tab is back with what it showed, and the draft with its edit. */
/** The Deliveries view's title says it is filtered and cleared, and the view says why it is empty. */
async function deliveriesNarrowed(): Promise<void> {
  await vscode.commands.executeCommand('workbench.view.extension.hookbench');
  const pane = `document.querySelector('.pane:has(> .pane-header[aria-label^="Deliveries"])')?.textContent ?? ''`;
  await until(
    () => readWorkbench<string>(pane),
    (shown) => /filtered: status:2xx · cleared \d\d:\d\d:\d\d/.test(shown) && shown.includes('No delivery since Clear matches the filter'),
    'the Deliveries view is filtered and cleared',
    20_000,
  );
}

async function findsEachTabBack(): Promise<void> {
  const hookbench = await api();
  await deliveriesNarrowed();
  // The tabs as the groups list them (what a failure shows): a label, and a URI or a view type.
  const tabs = () =>
    vscode.window.tabGroups.all.flatMap((group) =>
      group.tabs.map(
        (tab) =>
          `${group.viewColumn}: ${tab.label} ${tab.input instanceof vscode.TabInputText ? tab.input.uri.toString() : tab.input instanceof vscode.TabInputWebview ? tab.input.viewType : ''}`,
      ),
    );
  const back = (shown: string[]) =>
    ['hookbench-draft:', 'hookbench-sql:', 'hookbench.sqlResults', 'hookbench.stateTimeline', 'hookbench:/delivery/', 'hookbench-state:'].every(
      (what) => shown.filter((tab) => tab.includes(what)).length === 1,
    );
  await until(tabs, back, 'each tab is back, once').catch((error: Error) => {
    throw new Error(
      `${error.message}; the log: ${hookbench
        .recentLog()
        .filter((line) => /restored|inspector|error/i.test(line))
        .join(' | ')}`,
    );
  });
  const [draft] = textTabs('hookbench-draft');
  const [sqlConsole] = textTabs('hookbench-sql');
  // The delivery's document and the state read again from the receiver (once it runs).
  const [delivery] = textTabs('hookbench');
  const [state] = textTabs('hookbench-state');
  const textOf = async (uri: vscode.Uri) => (await vscode.workspace.openTextDocument(uri)).getText();
  await until(
    () => textOf(delivery!),
    (text) => /X-GitHub-Delivery: reload-1/i.test(text) && /### 200/.test(text),
    'the delivery document reads the delivery again',
    30_000,
  );
  await until(
    () => textOf(state!),
    (text) => /"lastEventType": "push"/.test(text),
    'the state document reads the state again',
    30_000,
  );
  // The results show their rows again.
  await showWebviewTab('hookbench.sqlResults');
  const results = await resultsShown(STATEMENT).catch(async (error: Error) => {
    // Once in CI (VS Code 1.100, after code-server restarted) the restored Results tab stayed blank:
    // no frame at all, before any of Hookbench's code draws in it. What a user does with a blank
    // panel: another tab, then this one again, and if that is not enough, Developer: Reload
    // Webviews. Said as a figure, so a run that needed it shows it.
    reportFigure('reload: the restored Results tab was blank at first', error.message.slice(0, 160));
    await vscode.commands.executeCommand('workbench.action.nextEditorInGroup');
    await showWebviewTab('hookbench.sqlResults');
    return resultsShown(STATEMENT).catch(async () => {
      await vscode.commands.executeCommand('workbench.action.webview.reloadWebviewAction');
      await showWebviewTab('hookbench.sqlResults');
      return resultsShown(STATEMENT);
    });
  });
  assert.deepEqual(results.error === null && results.rows, ROWS, 'the results show the rows they showed');

  // Each tab shown, as a person clicking it sees it.
  /** The column of the group a restored tab is in: shown there, where it was, not in the group last focused. */
  const columnOf = (uri: vscode.Uri) =>
    vscode.window.tabGroups.all.find((g) => g.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString()))
      ?.viewColumn;
  const draftEditor = await vscode.window.showTextDocument(draft!, { preview: false, viewColumn: columnOf(draft!) });
  await noneNotFound();
  assert.deepEqual(JSON.parse(draftEditor.document.getText()), EDITED, 'the draft has its edit');
  assert.equal(draftEditor.document.isDirty, false, 'the edit was kept as it was made: nothing to save');
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', draft);
  assert.ok(
    lenses.some((lens) => lens.command?.title.includes('Send github push to the local receiver')),
    'the draft still knows what it sends',
  );
  const consoleEditor = await vscode.window.showTextDocument(sqlConsole!, { preview: false, viewColumn: columnOf(sqlConsole!) });
  await noneNotFound();
  assert.equal(consoleEditor.document.getText().trim(), STATEMENT, 'the console has its statement');
  await until(
    () => consoleEditor.document.languageId,
    (id) => id === 'hookbench-sql',
    'the console is SQLite again',
  );
  // The timeline, in the console's group: it reads the history once the receiver runs, at the step it showed.
  const group = vscode.window.tabGroups.activeTabGroup;
  const timeline = group.tabs.findIndex((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('hookbench.stateTimeline'));
  assert.ok(timeline >= 0, 'the timeline is in the console’s group, as it was opened');
  await vscode.commands.executeCommand('workbench.action.openEditorAtIndex', timeline);
  const { html } = await timelineShown('event 1 of 2');
  assert.match(html, /reload-1/);
}

describe('Hookbench tabs across a reload', () => {
  const phase = reloadPhase();

  if (phase === undefined) {
    it('opens a draft, edits it, runs a statement in a console, steps the timeline back, then reloads the window', async function () {
      this.timeout(120_000);
      const hookbench = await api();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
      assert.equal(await deliver(url, 'push', 'reload-1', { ref: 'refs/heads/main', pusher: { name: 'zoe' }, commits: [] }), 200);
      assert.equal(await deliver(url, 'issues', 'reload-2', { action: 'opened', issue: { number: 3, title: 'Reload' } }), 200);

      const draft = await vscode.commands.executeCommand<vscode.Uri>('hookbench.webhook.send', { provider: 'github', event: 'push', entity: 'Acme/Reload' });
      const editor = await vscode.window.showTextDocument(draft, { preview: false });
      await editor.edit((edit) => edit.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), JSON.stringify(EDITED, null, 2)));
      await until(
        () => editor.document.isDirty,
        (dirty) => !dirty,
        'the draft saved itself',
      );

      const consoleUri = await vscode.commands.executeCommand<vscode.Uri>('hookbench.sql.open', REF);
      const consoleEditor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === consoleUri.toString())!;
      assert.equal(consoleEditor.document.languageId, 'hookbench-sql', 'the console speaks SQLite');
      await consoleEditor.edit((edit) => edit.replace(new vscode.Range(0, 0, consoleEditor.document.lineCount, 0), `${STATEMENT}\n`));
      await until(
        () => consoleEditor.document.isDirty,
        (dirty) => !dirty,
        'the console saved itself',
      );
      await vscode.commands.executeCommand('hookbench.sql.run', consoleUri);
      assert.deepEqual((await resultsShown(STATEMENT)).rows, ROWS);

      const view = (await vscode.commands.executeCommand('hookbench.timeline.open', REF)) as TimelineView;
      assert.ok(view.kind === 'steps' && view.steps.length === 2, JSON.stringify(view));
      assert.equal(await vscode.commands.executeCommand('hookbench.timeline.previous'), 0);
      // The timeline opened beside the console and its results, at half the editor's width: its After column shows.
      const { afterFits } = await timelineShown('event 1 of 2');
      assert.equal(afterFits, true, 'the After column is inside the panel');

      // A delivery's document and a state of the timeline as JSON, each kept open (not a preview).
      const delivery = (await (await adminClient(hookbench)).deliveries(10)).find((d) => d.requestHeaders['x-github-delivery'] === 'reload-1');
      assert.ok(delivery, 'the first delivery is listed');
      await vscode.commands.executeCommand('hookbench.delivery.open', delivery.id);
      await vscode.commands.executeCommand('workbench.action.keepEditor');
      const state = await vscode.commands.executeCommand<vscode.TextDocument>('hookbench.timeline.openState', 'after');
      assert.match(state.getText(), /"lastEventType": "push"/);
      await vscode.commands.executeCommand('workbench.action.keepEditor');

      // The Deliveries view filtered and cleared: both are kept across the reloads.
      await vscode.commands.executeCommand('hookbench.deliveries.filter', 'status:2xx');
      await vscode.commands.executeCommand('hookbench.deliveries.clear');
      await deliveriesNarrowed();

      this.timeout(0);
      await reloadWorkbench('window');
    });
  }

  if (phase === 'window') {
    it('finds each tab back after a window reload, then restarts code-server', async function () {
      this.timeout(120_000);
      await findsEachTabBack();
      this.timeout(0);
      await reloadWorkbench('server');
    });
  }

  if (phase === 'server') {
    it('finds each tab back after code-server restarted', async function () {
      this.timeout(120_000);
      await findsEachTabBack();
    });
  }
});
