// The inspector's webview pages, built by pure functions: strict CSP, escaped data, the row cap,
// SQLite's errors, the timeline's diff and what it says when an instance has no state history.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseResultsPanelState, parseTimelinePanelState } from '../../../../src/core/contract/editors';
import { timelineFrom } from '../../../../src/core/inspector/timeline';
import { resultsHtml } from '../../../../src/vscode/inspector/resultsHtml';
import { timelineHtml } from '../../../../src/vscode/inspector/timelineHtml';

const NONCE = 'bm9uY2Vub25jZQ==';
const CONSOLE = 'hookbench-sql:/WEBHOOK_AGENT/acme/acme%20%C2%B7%20webhook-agent.sql';
const STATE = { namespace: 'WEBHOOK_AGENT', name: 'acme' };

/** What the page hands VS Code to keep (`vscode.setState`), as VS Code gives it back to the serializer. */
function keptState(html: string): unknown {
  const found = /vscode\.setState\((.*)\);/.exec(html);
  assert.ok(found, 'the page hands VS Code its state');
  return JSON.parse(found[1]!);
}
const HOSTILE = '<img src=x onerror=alert(1)>"\'&';

function scriptsAndStyles(html: string): string[] {
  return [...html.matchAll(/<(script|style)([^>]*)>/g)].map(([, , attributes]) => attributes!.trim());
}

describe('the results page', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => [i, `row ${i}`]);

  it('allows only its own nonce’d style and script, and nothing from the network', () => {
    const html = resultsHtml({ nonce: NONCE, console: CONSOLE, instance: 'acme', mode: 'readOnly', outcome: undefined, maxShown: 10 });
    assert.match(html, new RegExp(`content="default-src 'none'; style-src 'nonce-${NONCE}'; script-src 'nonce-${NONCE}'"`));
    assert.deepEqual(scriptsAndStyles(html), [`nonce="${NONCE}"`, `nonce="${NONCE}"`]);
    assert.doesNotMatch(html, /https?:\/\//);
  });

  it('escapes column names, values and the statement', () => {
    const html = resultsHtml({
      nonce: NONCE,
      console: CONSOLE,
      instance: HOSTILE,
      mode: 'readOnly',
      outcome: { kind: 'rows', sql: `SELECT '${HOSTILE}'`, columns: [HOSTILE], rows: [[HOSTILE]], truncated: false, ms: 1 },
      maxShown: 10,
    });
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;&quot;&#39;&amp;/);
  });

  it('draws at most maxShown rows and says how many more were not shown', () => {
    const html = resultsHtml({
      nonce: NONCE,
      console: CONSOLE,
      instance: 'acme',
      mode: 'readOnly',
      outcome: { kind: 'rows', sql: 'SELECT', columns: ['n', 's'], rows: rows(25), truncated: false, ms: 1 },
      maxShown: 10,
    });
    assert.equal([...html.matchAll(/<tr>/g)].length, 11, 'the header and 10 rows');
    assert.match(html, /25 rows/);
    assert.match(html, /15 more rows not shown/);
  });

  it('says when the admin API’s cap cut the result', () => {
    const html = resultsHtml({
      nonce: NONCE,
      console: CONSOLE,
      instance: 'acme',
      mode: 'readOnly',
      outcome: { kind: 'rows', sql: 'SELECT', columns: ['n'], rows: rows(3), truncated: true, ms: 1 },
      maxShown: 10,
    });
    assert.match(html, /3\+ rows/);
    assert.match(html, /more rows not shown \(the admin API stops at its row cap\)/);
  });

  it('shows NULLs and blobs as such, and an error as SQLite said it', () => {
    const html = resultsHtml({
      nonce: NONCE,
      console: CONSOLE,
      instance: 'acme',
      mode: 'readOnly',
      outcome: { kind: 'rows', sql: 'SELECT', columns: ['a', 'b'], rows: [[null, { base64: 'AAE=' }]], truncated: false, ms: 1 },
      maxShown: 10,
    });
    assert.match(html, /<td class="null">NULL<\/td>/);
    assert.match(html, /blob AAE=/);
    const error = resultsHtml({
      nonce: NONCE,
      console: CONSOLE,
      instance: 'acme',
      mode: 'readOnly',
      outcome: { kind: 'error', sql: 'SELECT * FROM nope', message: 'SQL error: no such table: nope' },
      maxShown: 10,
    });
    assert.match(error, /<div class="error" id="error">SQL error: no such table: nope<\/div>/);
    assert.match(error, /disabled>Export CSV/);
  });

  it('shows the console’s mode, and how many rows a write changed', () => {
    const html = resultsHtml({
      nonce: NONCE,
      console: CONSOLE,
      instance: 'acme',
      mode: 'readWrite',
      outcome: { kind: 'rows', sql: 'DELETE', columns: [], rows: [], truncated: false, rowsWritten: 4, ms: 1 },
      maxShown: 10,
    });
    assert.match(html, /read-write: statements that write run on the live instance/);
    assert.match(html, /0 rows · 4 written/);
  });
});

describe('what the results page keeps across a reload', () => {
  it('hands VS Code its console and the outcome it draws, which the serializer reads back', () => {
    const outcome = { kind: 'rows', sql: 'SELECT id FROM events', columns: ['id'], rows: [['d-1'], [null]], truncated: false, ms: 3 } as const;
    const html = resultsHtml({ nonce: NONCE, console: CONSOLE, instance: 'acme', mode: 'readOnly', outcome, maxShown: 10 });
    assert.deepEqual(parseResultsPanelState(keptState(html)), { console: CONSOLE, outcome });
  });

  it('keeps only the rows it draws, and how many there were', () => {
    const outcome = { kind: 'rows', sql: 'SELECT', columns: ['n'], rows: Array.from({ length: 25 }, (_, i) => [i]), truncated: false, ms: 1 } as const;
    const kept = parseResultsPanelState(keptState(resultsHtml({ nonce: NONCE, console: CONSOLE, instance: 'acme', mode: 'readOnly', outcome, maxShown: 10 })));
    assert.equal(kept?.outcome?.kind === 'rows' && kept.outcome.rows.length, 10);
    assert.equal(kept?.outcome?.kind === 'rows' && kept.outcome.total, 25);
    const redrawn = resultsHtml({ nonce: NONCE, console: CONSOLE, instance: 'acme', mode: 'readOnly', outcome: kept!.outcome, maxShown: 10 });
    assert.match(redrawn, /25 rows/);
    assert.match(redrawn, /15 more rows not shown/);
  });

  it('writes a value that closes the script into its state without closing it', () => {
    const outcome = { kind: 'error', sql: `SELECT '</script><script>alert(1)</script>'`, message: HOSTILE } as const;
    const html = resultsHtml({ nonce: NONCE, console: CONSOLE, instance: 'acme', mode: 'readOnly', outcome, maxShown: 10 });
    assert.equal([...html.matchAll(/<\/script>/g)].length, 1, 'one script, closed once');
    assert.deepEqual(parseResultsPanelState(keptState(html)), { console: CONSOLE, outcome });
  });
});

describe('the timeline page', () => {
  const steps = timelineFrom([
    {
      seq: 1,
      event_id: 'd-1',
      event_type: 'push',
      title: 'Pushed',
      at: '2026-11-22T00:00:00.000Z',
      before: '{"stats":{"total":0}}',
      after: '{"stats":{"total":1}}',
    },
    {
      seq: 2,
      event_id: 'd-2',
      event_type: HOSTILE,
      title: null,
      at: '2026-11-22T00:00:01.000Z',
      before: '{"stats":{"total":1}}',
      after: `{"stats":{"total":2},"x":${JSON.stringify(HOSTILE)}}`,
    },
  ]);

  it('shows the chosen event’s diff, its position, and disables the way past either end', () => {
    const html = timelineHtml(NONCE, 'acme', { kind: 'steps', steps, index: 0 }, STATE);
    assert.match(html, /event 1 of 2/);
    assert.match(html, /<tr class="changed"><td><code>stats\.total<\/code><\/td><td>changed<\/td><td><code>0<\/code><\/td><td><code>1<\/code><\/td><\/tr>/);
    assert.match(html, /data-command="prev" disabled/);
    assert.doesNotMatch(html, /data-command="next" disabled/);
  });

  it('escapes event types and state values', () => {
    const html = timelineHtml(NONCE, 'acme', { kind: 'steps', steps, index: 1 }, STATE);
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /<tr class="added"><td><code>x<\/code>/);
    assert.match(html, /data-command="next" disabled/);
  });

  it('hands VS Code its instance and the step it shows, which the serializer reads back', () => {
    const html = timelineHtml(NONCE, 'acme', { kind: 'steps', steps, index: 0 }, { ...STATE, seq: 1 });
    assert.deepEqual(parseTimelinePanelState(keptState(html)), { ...STATE, seq: 1 });
  });

  it('tells a user whose worker keeps no state history what the timeline needs', () => {
    const html = timelineHtml(NONCE, 'acme', { kind: 'missing' }, STATE);
    assert.match(html, /No state history in this instance/);
    assert.match(html, /CREATE TABLE IF NOT EXISTS hookbench_state_history/);
    assert.match(html, /INSERT INTO hookbench_state_history \(event_id, event_type, title, at, before, after\)/);
  });
});
