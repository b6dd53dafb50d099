// The inspector's server side, against the built-in worker served on a real port with its data on
// disk: the schema listing the Tables node reads, the state history the timeline reads, and the
// execute route a read-write console writes through.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STATE_HISTORY_QUERY, type StateHistoryRow } from '../../../src/core/contract/timeline';
import { TABLE_SCHEMA_SQL, tablesFrom } from '../../../src/core/contract/tableSchema';
import { timelineFrom } from '../../../src/core/inspector/timeline';
import { serveDefaultWorker, type Served } from '../helpers/serveWorker';
import { githubPush, SECRETS } from '../workers/payloads';

const TOKEN = 'inspector-admin-token';
let served: Served;
before(async () => {
  served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN, settings: { retentionCount: 3 } });
});
after(() => served.stop());

async function post(instance: string, route: 'query' | 'execute', sql: string, params: unknown[] = [], token = TOKEN) {
  const response = await fetch(`${served.url}/__hookbench/instances/webhook-agent/${instance}/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify({ sql, params }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as any };
}

const webhook = (entity: string, delivery: { body: string; headers: Record<string, string> }) =>
  fetch(`${served.url}/webhooks/github/${entity}`, { method: 'POST', body: delivery.body, headers: delivery.headers });

async function history(instance: string): Promise<StateHistoryRow[]> {
  const { body } = await post(instance, 'query', STATE_HISTORY_QUERY, [1000]);
  return body.rows.map((row: unknown[]) => Object.fromEntries(body.columns.map((c: string, i: number) => [c, row[i]])));
}

describe('the Tables node’s schema listing', () => {
  it('lists the instance’s tables and columns with their types, not the runtime’s own', async () => {
    assert.equal((await webhook('schema-repo', githubPush('Acme/Schema', 'sch-1'))).status, 200);
    const { status, body } = await post('schema-repo', 'query', TABLE_SCHEMA_SQL);
    assert.equal(status, 200, JSON.stringify(body));
    const tables = tablesFrom(body);
    assert.deepEqual(
      tables.map((t) => t.name),
      ['cf_agents_jobs', 'cf_agents_state', 'events', 'hookbench_state_history'],
    );
    const events = tables.find((t) => t.name === 'events')!;
    assert.deepEqual(events.columns.slice(0, 3), [
      { name: 'id', type: 'TEXT', notNull: false, pk: 1 },
      { name: 'type', type: 'TEXT', notNull: true, pk: 0 },
      { name: 'action', type: 'TEXT', notNull: false, pk: 0 },
    ]);
  });
});

describe('the state history the timeline reads', () => {
  it('holds the state before and after each stored event, the last after being the state now', async () => {
    await webhook('timeline-repo', githubPush('Acme/Timeline', 'tl-1'));
    const issue = githubPush('Acme/Timeline', 'tl-2');
    await webhook('timeline-repo', { body: issue.body, headers: { ...issue.headers, 'x-github-event': 'issues' } });
    const steps = timelineFrom(await history('timeline-repo'));
    assert.deepEqual(
      steps.map((s) => [s.eventId, s.eventType]),
      [
        ['tl-1', 'push'],
        ['tl-2', 'issues'],
      ],
    );
    assert.deepEqual(steps[0]!.before, { lastEventType: null, lastEventAt: null, stats: { total: 0, byType: {} } });
    assert.deepEqual(steps[1]!.before, steps[0]!.after, 'each step starts where the one before ended');
    assert.deepEqual(
      steps[1]!.changes.filter((c) => c.path[0] !== 'lastEventAt'),
      [
        { kind: 'changed', path: ['lastEventType'], before: 'push', after: 'issues' },
        { kind: 'changed', path: ['stats', 'total'], before: 1, after: 2 },
        { kind: 'added', path: ['stats', 'byType', 'issues'], after: 1 },
      ],
    );
    const details = (await (
      await fetch(`${served.url}/__hookbench/instances/webhook-agent/timeline-repo`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { state: unknown };
    assert.deepEqual(steps[1]!.after, details.state);
  });

  it('adds no step for a duplicate delivery, and keeps as many steps as the retained events', async () => {
    const first = githubPush('Acme/Kept', 'kept-1');
    await webhook('kept-repo', first);
    await webhook('kept-repo', first);
    assert.equal((await history('kept-repo')).length, 1, 'the duplicate stored nothing');
    for (const id of ['kept-2', 'kept-3', 'kept-4', 'kept-5']) await webhook('kept-repo', githubPush('Acme/Kept', id));
    const rows = await history('kept-repo');
    assert.deepEqual(
      rows.map((r) => r.event_id),
      ['kept-3', 'kept-4', 'kept-5'],
      'retention 3 applies to the history too',
    );
    const events = await post('kept-repo', 'query', 'SELECT count(*) FROM events');
    assert.equal(events.body.rows[0][0], 3);
  });
});

describe('the execute route of a read-write console', () => {
  it('is refused by the read-only query route, and applied by the instance through the execute route', async () => {
    await webhook('write-repo', githubPush('Acme/Write', 'w-1'));
    const refused = await post('write-repo', 'query', "UPDATE events SET title = 'edited'");
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /^read-only:/);
    const written = await post('write-repo', 'execute', 'UPDATE events SET title = ? WHERE id = ?', ['edited', 'w-1']);
    assert.deepEqual([written.status, written.body.rowsWritten], [200, 1]);
    const created = await post('write-repo', 'execute', 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal((await post('write-repo', 'execute', "INSERT INTO notes (text) VALUES ('kept') RETURNING id, text")).body.rows[0][1], 'kept');
    assert.equal((await post('write-repo', 'query', "SELECT title FROM events WHERE id = 'w-1'")).body.rows[0][0], 'edited');
  });

  it('answers SQLite’s message for bad SQL, and refuses several statements, transactions and the runtime’s table', async () => {
    await webhook('bad-repo', githubPush('Acme/Bad', 'b-1'));
    const bad = await post('bad-repo', 'execute', 'UPDATE nope SET a = 1');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /SQL error: no such table: nope/);
    for (const [sql, reason] of [
      ['DELETE FROM events; DELETE FROM cf_agents_state', /exactly one statement/],
      ['BEGIN', /each statement is its own transaction/],
      ["UPDATE _hookbench_meta SET v = 0 WHERE k = 'seq'", /runtime's own table/],
      ['', /non-empty/],
    ] as const) {
      const answer = await post('bad-repo', 'execute', sql);
      assert.equal(answer.status, 400, sql);
      assert.match(answer.body.error, reason, sql);
    }
    assert.equal((await post('bad-repo', 'query', 'SELECT count(*) FROM events')).body.rows[0][0], 1, 'nothing refused was applied');
  });

  it('needs the admin token', async () => {
    assert.equal((await post('write-repo', 'execute', 'DELETE FROM events', [], 'wrong')).status, 401);
  });

  it('is durable: a write survives the serve process stopping and starting on the same data', async () => {
    await post('write-repo', 'execute', "INSERT INTO notes (text) VALUES ('after restart')");
    const dataDir = served.dataDir;
    await served.stop();
    served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN, dataDir, settings: { retentionCount: 3 } });
    const notes = await post('write-repo', 'query', 'SELECT text FROM notes ORDER BY id');
    assert.deepEqual(notes.body.rows, [['kept'], ['after restart']]);
  });
});
