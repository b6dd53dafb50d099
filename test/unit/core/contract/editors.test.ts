// What Hookbench keeps of its editors across a reload: a draft's record on disk, and the states
// of the results and timeline panels that VS Code stores; each read back as it was written, and
// anything else refused rather than half-read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatDraftRecord, parseDraftRecord, parseResultsPanelState, parseTimelinePanelState, resultsPanelState } from '../../../../src/core/contract/editors';

const RECORD = {
  path: '/3/github push · acme.json',
  meta: {
    provider: 'github',
    event: 'push',
    entity: 'acme',
    headers: { 'x-github-event': 'push', 'content-type': 'application/json' },
    url: 'https://example.test/hook',
  },
} as const;

describe('a draft’s record', () => {
  it('is read back as it was written', () => {
    assert.deepEqual(parseDraftRecord(formatDraftRecord(RECORD)), RECORD);
    const local = { path: '/4/stripe charge.succeeded.json', meta: { provider: 'stripe', event: 'charge.succeeded', entity: '', headers: {} } } as const;
    assert.deepEqual(parseDraftRecord(formatDraftRecord(local)), local);
  });

  it('is refused when damaged, of an unknown provider, or with headers that are not text', () => {
    assert.equal(parseDraftRecord('{"path": "/1/x.json", "meta": '), undefined);
    assert.equal(parseDraftRecord(formatDraftRecord({ ...RECORD, meta: { ...RECORD.meta, provider: 'gitlab' as 'github' } })), undefined);
    assert.equal(parseDraftRecord(JSON.stringify({ path: '/1/x.json', meta: { ...RECORD.meta, headers: { n: 1 } } })), undefined);
    assert.equal(parseDraftRecord(JSON.stringify({ meta: RECORD.meta })), undefined);
  });
});

describe('a results panel’s state', () => {
  const CONSOLE = 'hookbench-sql:/NS/acme/acme%20%C2%B7%20agent.sql';

  it('keeps a result whole when it draws all of it, and its first rows with the count when not', () => {
    const small = { kind: 'rows', sql: 'SELECT 1', columns: ['1'], rows: [[1]], truncated: false, ms: 1 } as const;
    assert.deepEqual(resultsPanelState(CONSOLE, small, 500), { console: CONSOLE, outcome: small });
    const big = { ...small, rows: Array.from({ length: 501 }, () => [1]) };
    const kept = resultsPanelState(CONSOLE, big, 500).outcome;
    assert.deepEqual(kept?.kind === 'rows' && [kept.rows.length, kept.total], [500, 501]);
  });

  it('is refused when it names no console or its rows are not values', () => {
    assert.equal(parseResultsPanelState(undefined), undefined);
    assert.equal(parseResultsPanelState({ outcome: { kind: 'error', sql: 'x', message: 'y' } }), undefined);
    assert.equal(
      parseResultsPanelState({ console: CONSOLE, outcome: { kind: 'rows', sql: 'x', columns: ['a'], rows: [[{}]], truncated: false, ms: 1 } }),
      undefined,
    );
    assert.deepEqual(parseResultsPanelState({ console: CONSOLE }), { console: CONSOLE });
  });
});

describe('a timeline panel’s state', () => {
  it('names the instance and, when the panel showed an older step, that step', () => {
    assert.deepEqual(parseTimelinePanelState({ namespace: 'NS', name: 'acme', seq: 4 }), { namespace: 'NS', name: 'acme', seq: 4 });
    assert.deepEqual(parseTimelinePanelState({ namespace: 'NS', name: 'acme' }), { namespace: 'NS', name: 'acme' });
    assert.equal(parseTimelinePanelState({ namespace: 'NS' }), undefined);
  });
});
