// What the pages post is what their panels accept: every element a page marks with a message, and
// every key it binds, posts a message its panel's parser takes as it is (core/contract/panelMessages.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHAOS_FORMAT, parseChaosReport, type ChaosReport } from '../../../../src/core/contract/chaos';
import { parseChaosMessage, parseResultsMessage, parseTimelineMessage } from '../../../../src/core/contract/panelMessages';
import { timelineFrom } from '../../../../src/core/inspector/timeline';
import { chaosHtml } from '../../../../src/vscode/chaos/chaosHtml';
import { resultsHtml } from '../../../../src/vscode/inspector/resultsHtml';
import { timelineHtml } from '../../../../src/vscode/inspector/timelineHtml';
import { commandAttributes } from '../../../../src/vscode/inspector/webviewHtml';

const NONCE = 'bm9uY2Vub25jZQ==';

/** What the page's script posts for a click on each marked element, and for each bound key. */
function posted(html: string): unknown[] {
  const unescape = (text: string) =>
    text
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const clicks = [...html.matchAll(/data-command="([^"]*)"(?: data-arg="([^"]*)")?/g)].map(([, command, arg]) => ({
    type: 'command',
    command: unescape(command!),
    arg: arg === undefined ? undefined : unescape(arg),
  }));
  const keys = /const KEYS = (.*);/.exec(html);
  return [...clicks, ...(keys ? Object.values(JSON.parse(keys[1]!) as Record<string, unknown>) : [])];
}

describe('the messages a page posts', () => {
  it('are all accepted by the results panel', () => {
    const html = resultsHtml({
      nonce: NONCE,
      console: 'hookbench-sql:/N/a/a.sql',
      instance: 'a',
      mode: 'readOnly',
      outcome: { kind: 'rows', sql: 'SELECT 1', columns: ['1'], rows: [[1]], truncated: false, ms: 1 },
      maxShown: 10,
    });
    const messages = posted(html);
    assert.equal(messages.length, 4);
    for (const message of messages) assert.ok(parseResultsMessage(message), JSON.stringify(message));
  });

  it('are all accepted by the timeline panel, its steps and its arrow keys among them', () => {
    const steps = timelineFrom([
      { seq: 1, event_id: 'd-1', event_type: 'push', title: 'Pushed', at: '2026-11-22T00:00:00.000Z', before: '{}', after: '{"n":1}' },
      { seq: 2, event_id: 'd-2', event_type: 'push', title: null, at: '2026-11-22T00:00:01.000Z', before: '{"n":1}', after: '{"n":2}' },
    ]);
    const messages = posted(timelineHtml(NONCE, 'a', { kind: 'steps', steps, index: 1 }, { namespace: 'N', name: 'a' }));
    assert.deepEqual(
      messages.map((m) => parseTimelineMessage(m)?.command),
      ['select', 'select', 'prev', 'next', 'openBefore', 'openAfter', 'prev', 'prev', 'next', 'next'],
    );
  });

  it('are all accepted by the chaos panel', () => {
    const report = parseChaosReport(
      JSON.stringify({
        format: CHAOS_FORMAT,
        suite: '/s',
        fixtures: 1,
        worker: 'w.ts',
        seed: 1,
        runs: 1,
        ms: 1,
        noise: [],
        excluded: [],
        baseline: { entities: ['A/a'], statuses: { '200': 1 }, ms: 1 },
        verdicts: [
          {
            perturbation: 'duplicates',
            verdict: 'FAIL',
            runs: 1,
            sends: 1,
            failure: {
              perturbation: 'duplicates',
              seed: 1,
              run: 1,
              perturbed: [],
              fixtures: ['f'],
              sends: [{ step: 1, fixture: 'f', file: 'f.json', kind: 'delivery', status: 200 }],
              differences: [],
              timeline: [{ step: 1, sent: 'f', expected: {}, actual: {}, differences: [] }],
              replay: '/s/.chaos/d',
              shrunkFrom: { fixtures: 1, sends: 1 },
              shrinkRuns: 1,
            },
          },
        ],
      } satisfies ChaosReport),
    );
    const messages = posted(chaosHtml(NONCE, { report, selected: 'duplicates', step: 0 }));
    assert.deepEqual(
      messages.map((m) => parseChaosMessage(m)?.command),
      ['select', 'replay', 'prev', 'next', 'prev', 'next'],
    );
  });

  it('escapes what a message names in the element’s attributes', () => {
    assert.equal(
      commandAttributes({ type: 'command', command: 'select', arg: '"><img src=x>' }),
      'data-command="select" data-arg="&quot;&gt;&lt;img src=x&gt;"',
    );
  });
});
