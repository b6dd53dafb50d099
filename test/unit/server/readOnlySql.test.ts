import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readOnlyRefusal } from '../../../src/server/readOnlySql';

describe('readOnlyRefusal', () => {
  it('accepts one statement that reads', () => {
    for (const sql of [
      'SELECT * FROM events',
      ' select 1;  ',
      '-- newest first\nSELECT id FROM events ORDER BY timestamp DESC LIMIT ?',
      'VALUES (1), (2)',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3) SELECT x FROM c',
      'EXPLAIN QUERY PLAN SELECT * FROM events WHERE id = ?',
      'EXPLAIN SELECT 1',
      'PRAGMA user_version',
      'PRAGMA main.user_version;',
      'PRAGMA table_info(events)',
      "PRAGMA table_info('events')",
      'PRAGMA main.index_list("events")',
      'PRAGMA integrity_check(10)',
      "SELECT ';' AS semicolon, 'it''s; fine' AS quoted",
    ]) {
      assert.equal(readOnlyRefusal(sql), undefined, sql);
    }
  });

  it('refuses a PRAGMA that sets a value, with = or as an argument', () => {
    for (const sql of ['PRAGMA user_version(1337)', 'PRAGMA user_version = 1337', 'PRAGMA query_only(1)', 'PRAGMA query_only = ON', 'PRAGMA journal_mode(DELETE)', 'PRAGMA main.journal_mode = WAL', 'PRAGMA writable_schema=1', 'EXPLAIN PRAGMA query_only(1)', 'PRAGMA optimize', 'PRAGMA table_info = events']) {
      assert.match(readOnlyRefusal(sql) ?? 'accepted', /^read-only: /, sql);
    }
  });

  it('refuses every statement that writes, or more than one statement', () => {
    for (const sql of ['DELETE FROM events', 'INSERT INTO events(id) VALUES (1)', 'WITH x AS (SELECT 1) DELETE FROM events', 'ATTACH DATABASE ? AS other', 'BEGIN', 'VACUUM', 'CREATE TABLE x (y)', 'EXPLAIN QUERY PLAN DELETE FROM events']) {
      assert.match(readOnlyRefusal(sql) ?? 'accepted', /^read-only: /, sql);
    }
    for (const sql of ['SELECT 1; DELETE FROM events', 'SELECT 1;SELECT 2', "SELECT 'a;'; PRAGMA query_only = 1"]) {
      assert.equal(readOnlyRefusal(sql), 'exactly one statement is allowed', sql);
    }
    assert.equal(readOnlyRefusal(' -- nothing\n ;'), 'there is no statement to run');
  });
});
