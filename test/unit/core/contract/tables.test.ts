// The tables other rooms read, run on SQLite as the worker, the Agent, the admin API and the
// extension run them: what one room writes, the others read with the contract's SQL.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from 'sql.js';
import type { StoredEvent } from '../../../../src/core/contract/instances';
import {
  AGENT_STATE_DDL,
  AGENT_STATE_ROW_ID,
  AGENT_STATE_SELECT,
  AGENT_STATE_UPSERT,
  EVENT_PAYLOAD,
  EVENTS_CLEAR,
  EVENTS_DDL,
  EVENTS_INDEX_DDL,
  EVENTS_INSERT,
  EVENTS_NEWEST,
  eventValues,
  stateFromText,
  stateText,
} from '../../../../src/core/contract/tables';
import { loadSqlJs } from '../../../../src/runtime/storage/sqljs';

const event = (id: string, timestamp: string): StoredEvent => ({
  id,
  type: 'push',
  action: null,
  title: `pushed ${id}`,
  description: null,
  url: null,
  actor: 'octocat',
  payload: `{"id":"${id}"}`,
  timestamp,
});
const rows = (db: Database, sql: string, params: (string | number)[] = []) => {
  const [result] = db.exec(sql, params);
  return result ? result.values.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i]]))) : [];
};

describe('the events table', () => {
  let db: Database;
  before(async () => {
    db = new (await loadSqlJs()).Database();
    db.run(EVENTS_DDL);
    db.run(EVENTS_INDEX_DDL);
  });

  it('is created by the statement every data folder holds, byte for byte', () => {
    const [kept] = rows(db, "SELECT sql FROM sqlite_master WHERE name = 'events'");
    const columns = [
      'id TEXT PRIMARY KEY',
      'type TEXT NOT NULL',
      'action TEXT',
      'title TEXT NOT NULL',
      'description TEXT',
      'url TEXT',
      'actor TEXT',
      'payload TEXT',
      'timestamp TEXT NOT NULL',
    ];
    assert.equal(kept!['sql'], `CREATE TABLE events (\n${columns.map((c) => `      ${c}`).join(',\n')}\n    )`);
  });

  it('stores an event once per delivery id, and lists the newest first without payloads', () => {
    db.run(EVENTS_INSERT, eventValues(event('d-1', '2026-11-24T10:00:00.000Z')));
    db.run(EVENTS_INSERT, eventValues(event('d-2', '2026-11-24T11:00:00.000Z')));
    db.run(EVENTS_INSERT, eventValues({ ...event('d-1', '2026-11-24T12:00:00.000Z'), title: 'a retry' }));
    assert.deepEqual(rows(db, EVENTS_NEWEST, [10]), [
      { id: 'd-2', type: 'push', action: null, title: 'pushed d-2', timestamp: '2026-11-24T11:00:00.000Z' },
      { id: 'd-1', type: 'push', action: null, title: 'pushed d-1', timestamp: '2026-11-24T10:00:00.000Z' },
    ]);
    assert.deepEqual(rows(db, EVENT_PAYLOAD, ['d-2']), [{ payload: '{"id":"d-2"}' }]);
    db.run(EVENTS_CLEAR);
    assert.deepEqual(rows(db, EVENTS_NEWEST, [10]), []);
  });
});

describe('the state row', () => {
  it('reads back the state the Agent wrote', async () => {
    const db = new (await loadSqlJs()).Database();
    db.run(AGENT_STATE_DDL);
    db.run(AGENT_STATE_UPSERT, [AGENT_STATE_ROW_ID, stateText({ count: 1 })]);
    db.run(AGENT_STATE_UPSERT, [AGENT_STATE_ROW_ID, stateText({ count: 2, by: 'bob' })]);
    const read = rows(db, AGENT_STATE_SELECT, [AGENT_STATE_ROW_ID]);
    assert.equal(read.length, 1);
    assert.deepEqual(stateFromText(String(read[0]!['state'])), { count: 2, by: 'bob' });
  });
});
