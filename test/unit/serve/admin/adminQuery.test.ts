// The admin API's query runner on its own: a copy of a DurableDatabase, run in the worker thread
// that `node esbuild.js` builds into dist/, with the statement policy left out to show the second wall.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DurableDatabase } from '../../../../src/runtime/storage/durableDatabase';
import { loadSqlJs } from '../../../../src/runtime/storage/sqljs';
import { QueryError, QueryRunner } from '../../../../src/serve/admin/adminQuery';

const endless = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
let db: DurableDatabase;
const runners: QueryRunner[] = [];
const runner = (options: ConstructorParameters<typeof QueryRunner>[0] = {}) => {
  const made = new QueryRunner(options);
  runners.push(made);
  return made;
};
const ask = (on: QueryRunner, sql: string, params: (string | number | null)[] = [], timeoutMs?: number) =>
  on.run({ image: async () => db.image(), sql, params, timeoutMs });
const refusal = async (promise: Promise<unknown>): Promise<QueryError> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof QueryError, String(error));
    return error;
  }
  assert.fail('the query was answered');
};

before(async () => {
  db = await DurableDatabase.open({ sql: await loadSqlJs(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'hb-query-')) });
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, b BLOB)');
  db.exec('INSERT INTO t (v, b) VALUES (?, ?)', ['one', null]);
  db.exec("INSERT INTO t (v, b) VALUES ('two', x'00ff')");
  await db.commit();
});
after(async () => {
  for (const made of runners) made.close();
  await db.close();
});

describe('DurableDatabase.image', () => {
  it('copies what is in memory and leaves the live database as it was', () => {
    assert.equal(db.exec('SELECT count(*) FROM t').rows[0]![0], 2);
    const image = db.image();
    assert.equal(Buffer.from(image.subarray(0, 15)).toString('latin1'), 'SQLite format 3');
    // Cached statements and pragmas survive the copy.
    assert.equal(db.exec('SELECT count(*) FROM t').rows[0]![0], 2);
    assert.deepEqual(db.exec('PRAGMA journal_mode').rows, [['memory']]);
  });
});

describe('QueryRunner', () => {
  it('answers columns and rows of the copy, blobs as bytes', async () => {
    const result = await ask(runner(), 'SELECT v, b FROM t WHERE id >= ? ORDER BY id', [1]);
    assert.deepEqual(result.columns, ['v', 'b']);
    assert.deepEqual(result.rows, [
      ['one', null],
      ['two', new Uint8Array([0, 255])],
    ]);
    assert.equal(result.truncated, false);
  });

  it('refuses a statement that made its copy writable, even with no parser in front', async () => {
    const error = await refusal(ask(runner(), 'PRAGMA query_only = 0'));
    assert.equal(error.status, 400);
    assert.match(error.message, /^read-only: /);
  });

  it('runs every statement read-only, so a write fails on the copy and the live database keeps its rows', async () => {
    for (const sql of ['DELETE FROM t', 'PRAGMA user_version = 7', 'CREATE TABLE x (y)']) {
      const error = await refusal(ask(runner(), sql));
      assert.equal(error.status, 400, sql);
      assert.match(error.message, /readonly|read-only/, sql);
    }
    assert.equal(db.exec('SELECT count(*) FROM t').rows[0]![0], 2);
    assert.deepEqual(db.exec('PRAGMA user_version').rows, [[0]]);
  });

  it('runs exactly one statement', async () => {
    const error = await refusal(ask(runner(), 'SELECT 1; SELECT 2'));
    assert.match(error.message, /exactly one statement/);
  });

  it('stops a query at its own time limit and starts a fresh worker for the next', async () => {
    const limited = runner({ timeoutMs: 200 });
    const error = await refusal(ask(limited, endless));
    assert.equal(error.status, 408);
    assert.equal(error.message, "query stopped after 200 ms: it ran past the admin API's time limit");
    assert.deepEqual((await ask(limited, 'SELECT count(*) FROM t')).rows, [[2]]);
  });

  it('lets a request shorten the time limit, never lengthen it', async () => {
    const limited = runner({ timeoutMs: 250 });
    assert.match((await refusal(ask(limited, endless, [], 100))).message, /^query stopped after 100 ms/);
    assert.match((await refusal(ask(limited, endless, [], 60_000))).message, /^query stopped after 250 ms/);
  });

  it('answers 503 to a query that finds the line full, and runs the waiting ones in turn', async () => {
    const short = runner({ timeoutMs: 200, maxWaiting: 1 });
    const running = ask(short, endless);
    const waiting = ask(short, 'SELECT count(*) FROM t');
    assert.equal((await refusal(ask(short, 'SELECT 1'))).status, 503);
    assert.equal((await refusal(running)).status, 408);
    assert.deepEqual((await waiting).rows, [[2]]);
  });

  it('caps the rows and says so', async () => {
    const result = await ask(runner({ maxRows: 3 }), 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5) SELECT x FROM c');
    assert.deepEqual(result.rows, [[1], [2], [3]]);
    assert.equal(result.truncated, true);
  });
});

describe('QueryRunner.check (a console write tried on a copy before it is applied)', () => {
  let live: DurableDatabase;
  const check = (on: QueryRunner, sql: string, timeoutMs?: number) => on.check({ image: async () => live.image(), sql, params: [], timeoutMs });
  const runtimeRows = () => [
    live.exec('SELECT * FROM cf_agents_state').rows,
    live.exec('SELECT * FROM _cf_KV').rows,
    live.exec('SELECT sql FROM sqlite_master ORDER BY name').rows,
  ];

  before(async () => {
    live = await DurableDatabase.open({ sql: await loadSqlJs(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'hb-check-')) });
    // The runtime's tables as the agents SDK and workerd make them, and a worker's own.
    live.exec('CREATE TABLE cf_agents_state (id TEXT PRIMARY KEY NOT NULL, state TEXT)');
    live.exec("INSERT INTO cf_agents_state VALUES ('cf_state_row_id', '{\"n\":1}')");
    live.exec('CREATE TABLE _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID');
    live.exec("INSERT INTO _cf_KV VALUES ('k', x'01')");
    live.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
    live.exec('CREATE TABLE audit (text TEXT)');
    // Triggers the worker's own code made: a console write to its tables reaches the runtime's through them.
    live.exec("CREATE TRIGGER notes_state AFTER INSERT ON notes WHEN new.text = 'state' BEGIN UPDATE cf_agents_state SET state = '{}'; END");
    live.exec("CREATE TRIGGER notes_kv AFTER INSERT ON notes WHEN new.text = 'kv' BEGIN DELETE FROM _cf_KV; END");
    await live.commit();
  });
  after(() => live.close());

  it('resolves for a write to the worker’s own tables, and leaves the live database to the caller', async () => {
    await check(runner(), "INSERT INTO notes (text) VALUES ('plain')");
    await check(runner(), 'CREATE TABLE more_notes (x)');
    await check(runner(), 'DROP TABLE audit');
    for (const sql of ['VACUUM', 'ANALYZE', 'REINDEX', 'PRAGMA user_version = 3']) await check(runner(), sql);
    assert.deepEqual(live.exec('SELECT count(*) FROM notes').rows, [[0]], 'only the copy was written');
  });

  it('refuses what changed the runtime’s tables on the copy, with no statement policy in front, through a trigger or a spelling', async () => {
    const before = runtimeRows();
    for (const [sql, changed] of [
      ["INSERT INTO notes (text) VALUES ('state')", "the rows of the runtime's own table cf_agents_state"],
      ["INSERT INTO notes (text) VALUES ('kv')", "the rows of the runtime's own table _cf_KV"],
      ["UPDATE 'CF_AGENTS_STATE' SET state = NULL", "the rows of the runtime's own table cf_agents_state"],
      ['DELETE FROM [main].[_cf_kv]', "the rows of the runtime's own table _cf_KV"],
      ['ALTER TABLE cf_agents_state RENAME TO old_state', "the schema of the runtime's own tables"],
      ['ALTER TABLE notes RENAME TO cf_agents_notes', "the schema of the runtime's own tables"],
      ['CREATE TRIGGER guard BEFORE UPDATE ON cf_agents_state BEGIN SELECT RAISE(ABORT, 1); END', "the schema of the runtime's own tables"],
      ['PRAGMA writable_schema = ON', 'writable_schema'],
      ['PRAGMA journal_mode = OFF', 'the connection setting journal_mode'],
      ["ATTACH ':memory:' AS other", 'the attached databases'],
      ['CREATE TEMP TABLE cf_shadow (x)', 'the temporary schema'],
    ] as const) {
      const error = await refusal(check(runner(), sql));
      assert.equal(error.status, 400, sql);
      assert.equal(error.message, `refused: the statement changed ${changed} when tried on a copy of the database, so it was not applied`, sql);
    }
    assert.deepEqual(runtimeRows(), before);
  });

  it('answers SQLite’s error from the copy', async () => {
    const error = await refusal(check(runner(), 'UPDATE nope SET a = 1'));
    assert.deepEqual([error.status, error.message], [400, 'SQL error: no such table: nope']);
  });

  it('stops a write that runs past the time limit on the copy: 408, and nothing to apply', async () => {
    const error = await refusal(check(runner({ timeoutMs: 200 }), `INSERT INTO notes (text) SELECT * FROM (${endless})`));
    assert.equal(error.status, 408);
    assert.equal(error.message, "statement stopped after 200 ms on a copy of the database, and not applied: it ran past the admin API's time limit");
  });
});
