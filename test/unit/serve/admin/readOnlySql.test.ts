import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { executeRefusal, readOnlyRefusal } from '../../../../src/serve/admin/readOnlySql';

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
    for (const sql of [
      'PRAGMA user_version(1337)',
      'PRAGMA user_version = 1337',
      'PRAGMA query_only(1)',
      'PRAGMA query_only = ON',
      'PRAGMA journal_mode(DELETE)',
      'PRAGMA main.journal_mode = WAL',
      'PRAGMA writable_schema=1',
      'EXPLAIN PRAGMA query_only(1)',
      'PRAGMA optimize',
      'PRAGMA table_info = events',
    ]) {
      assert.match(readOnlyRefusal(sql) ?? 'accepted', /^read-only: /, sql);
    }
  });

  it('refuses every statement that writes, or more than one statement', () => {
    for (const sql of [
      'DELETE FROM events',
      'INSERT INTO events(id) VALUES (1)',
      'WITH x AS (SELECT 1) DELETE FROM events',
      'ATTACH DATABASE ? AS other',
      'BEGIN',
      'VACUUM',
      'CREATE TABLE x (y)',
      'EXPLAIN QUERY PLAN DELETE FROM events',
    ]) {
      assert.match(readOnlyRefusal(sql) ?? 'accepted', /^read-only: /, sql);
    }
    for (const sql of ['SELECT 1; DELETE FROM events', 'SELECT 1;SELECT 2', "SELECT 'a;'; PRAGMA query_only = 1"]) {
      assert.equal(readOnlyRefusal(sql), 'exactly one statement is allowed', sql);
    }
    assert.equal(readOnlyRefusal(' -- nothing\n ;'), 'there is no statement to run');
  });
});

describe('executeRefusal', () => {
  it('accepts what a developer does in a SQL console: writes to the worker’s own tables, their schema, user_version', () => {
    for (const sql of [
      "UPDATE events SET title = 'edited' WHERE id = ?",
      'INSERT INTO notes (text) VALUES (?) RETURNING id',
      'DELETE FROM events',
      'WITH old AS (SELECT id FROM events LIMIT 3) DELETE FROM events WHERE id IN old',
      'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)',
      'CREATE INDEX notes_text ON notes (text)',
      'CREATE TRIGGER notes_touch AFTER INSERT ON notes BEGIN UPDATE notes SET text = lower(text) WHERE id = new.id; END',
      'ALTER TABLE notes ADD COLUMN at TEXT',
      'DROP TABLE notes',
      'VACUUM',
      'PRAGMA user_version = 3',
      'PRAGMA main.user_version(4)',
      'PRAGMA application_id = 7',
      'PRAGMA optimize',
      'PRAGMA user_version',
      "INSERT INTO notes (text) VALUES ('temp.txt')",
    ]) {
      assert.equal(executeRefusal(sql), undefined, sql);
    }
    assert.equal(
      executeRefusal('CREATE TRIGGER t AFTER INSERT ON notes BEGIN SELECT CASE WHEN 1 THEN 2 END; END; DELETE FROM events'),
      'exactly one statement is allowed',
    );
  });

  it('refuses writable_schema in any spelling', () => {
    for (const sql of [
      'PRAGMA writable_schema=ON',
      'pragma WRITABLE_SCHEMA = 1',
      'PRAGMA "writable_schema" = 1',
      "PRAGMA 'writable_schema' = 1",
      'PRAGMA [writable_schema] = 1',
      'PRAGMA `writable_schema`=1',
      'PRAGMA main.writable_schema(1)',
      'PRAGMA /* x */ writable_schema = 1',
      'EXPLAIN PRAGMA writable_schema = 1',
      'SELECT * FROM pragma_writable_schema',
    ]) {
      assert.match(executeRefusal(sql) ?? 'accepted', /^writable_schema is refused: /, sql);
    }
  });

  it('refuses SQLite’s schema tables, however named', () => {
    for (const sql of [
      "UPDATE sqlite_master SET name = 'x'",
      'UPDATE main.sqlite_schema SET sql = NULL',
      'DELETE FROM "SQLITE_MASTER"',
      'UPDATE [sqlite_temp_master] SET name = 1',
      "UPDATE 'sqlite_schema' SET name = 1",
      'INSERT INTO `main`.`sqlite_master` VALUES (1, 2, 3, 4, 5)',
    ]) {
      assert.match(executeRefusal(sql) ?? 'accepted', /^sqlite_(temp_)?(master|schema) is refused: /i, sql);
    }
  });

  it('refuses the runtime’s own tables however they are named, even in a trigger or a view', () => {
    for (const sql of [
      "UPDATE cf_agents_state SET state = '{}'",
      'DELETE FROM "cf_agents_state"',
      'DELETE FROM [CF_AGENTS_STATE]',
      'DELETE FROM `Cf_Agents_State`',
      "DELETE FROM 'cf_agents_state'",
      'DELETE FROM main.cf_agents_jobs',
      'DELETE FROM "main"."cf_agents_workflows"',
      'DROP TABLE _cf_KV',
      'UPDATE _cf_alarm SET time = 0',
      "UPDATE _hookbench_meta SET v = 0 WHERE k = 'seq'",
      'ALTER TABLE cf_agents_state RENAME TO old_state',
      'ALTER TABLE notes RENAME TO cf_agents_notes',
      'CREATE TRIGGER t AFTER INSERT ON notes BEGIN DELETE FROM cf_agents_state; END',
      'CREATE TRIGGER t BEFORE INSERT ON cf_agents_state BEGIN SELECT RAISE(ABORT, 1); END',
      'CREATE VIEW state_view AS SELECT * FROM "cf_agents_state"',
      'CREATE INDEX x ON cf_agents_state (state)',
      "UPDATE sqlite_sequence SET seq = 0 WHERE name = 'cf_agents_jobs'",
    ]) {
      assert.match(executeRefusal(sql) ?? 'accepted', /(is the runtime's own table|^sqlite_\w+ is refused)/i, sql);
    }
  });

  it('refuses what lives outside the instance’s database file: ATTACH, VACUUM INTO, temporary objects', () => {
    for (const [sql, reason] of [
      ["ATTACH ':memory:' AS other", /^ATTACH is refused/],
      ['DETACH other', /^DETACH is refused/],
      ["VACUUM INTO '/tmp/copy.db'", /^VACUUM INTO is refused/],
      ['CREATE TEMP TABLE scratch (x)', /^CREATE TEMP is refused/],
      ['create temporary view v as select 1', /^CREATE TEMP is refused/],
      ['CREATE TABLE temp.scratch (x)', /^CREATE TEMP is refused/],
      ['CREATE TRIGGER "temp".t AFTER INSERT ON notes BEGIN SELECT 1; END', /^CREATE TEMP is refused/],
    ] as const) {
      assert.match(executeRefusal(sql) ?? 'accepted', reason, sql);
    }
  });

  it('refuses a pragma that sets the connection’s behaviour or the file’s format', () => {
    for (const sql of [
      'PRAGMA journal_mode = OFF',
      'PRAGMA main.journal_mode(WAL)',
      'PRAGMA "locking_mode" = NORMAL',
      'PRAGMA foreign_keys = ON',
      'PRAGMA schema_version = 1',
      'PRAGMA page_size = 512',
      'PRAGMA query_only = 1',
      'EXPLAIN PRAGMA journal_mode = OFF',
    ]) {
      assert.match(executeRefusal(sql) ?? 'accepted', /^PRAGMA \w+ is refused: only user_version and application_id/, sql);
    }
  });
});
