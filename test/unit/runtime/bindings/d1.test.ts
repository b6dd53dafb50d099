import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { D1Database } from '../../../../src/runtime/bindings/d1';
import { splitStatements } from '../../../../src/runtime/bindings/sqlSplit';
import { storeAt, tempDir } from './helpers';

const d1At = async (dir: string) => new D1Database(await storeAt(dir, []));

async function withTable(dir = tempDir('d1')) {
  const db = await d1At(dir);
  await db.prepare('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, flag INTEGER, data BLOB)').run();
  return db;
}

describe('D1 database', () => {
  it('binds values, maps booleans to 1/0 and buffers to blobs returned as byte arrays', async () => {
    const db = await withTable();
    const insert = await db
      .prepare('INSERT INTO t (name, flag, data) VALUES (?1, ?2, ?3)')
      .bind('a', true, new Uint8Array([1, 2]))
      .run();
    assert.equal(insert.success, true);
    assert.equal(insert.meta.changes, 1);
    assert.equal(insert.meta.last_row_id, 1);
    assert.equal(insert.meta.changed_db, true);
    assert.deepEqual(await db.prepare('SELECT name, flag, data FROM t').first(), { name: 'a', flag: 1, data: [1, 2] });
    assert.equal(await db.prepare('SELECT name FROM t WHERE id = ?').bind(1).first('name'), 'a');
    assert.equal(await db.prepare('SELECT name FROM t WHERE id = ?').bind(9).first(), null);
  });

  it('throws D1 errors with their platform texts', async () => {
    const db = await withTable();
    assert.throws(() => db.prepare('SELECT ?').bind(undefined), { message: "D1_TYPE_ERROR: Type 'undefined' not supported for value 'undefined'" });
    await assert.rejects(db.prepare('SELECT * FROM nope').all(), { message: 'D1_ERROR: no such table: nope: SQLITE_ERROR' });
    await db.prepare("INSERT INTO t (name) VALUES ('x')").run();
    await assert.rejects(db.prepare("INSERT INTO t (name) VALUES ('x')").run(), {
      message: 'D1_ERROR: UNIQUE constraint failed: t.name: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_UNIQUE)',
    });
    await assert.rejects(db.prepare('SELECT name FROM t').first('missing'), { message: 'D1_COLUMN_NOTFOUND: Column not found (missing)' });
    await assert.rejects(db.prepare('SELECT ?, ?').bind(1).all(), { message: 'D1_ERROR: Wrong number of parameter bindings for SQL query.' });
    await assert.rejects(db.prepare('SELEC 1').all(), { message: 'D1_ERROR: near "SELEC": syntax error at offset 0: SQLITE_ERROR' });
  });

  it('returns raw rows, with the column names first when asked', async () => {
    const db = await withTable();
    await db.prepare("INSERT INTO t (name, flag) VALUES ('a', 0), ('b', 1)").run();
    assert.deepEqual(await db.prepare('SELECT name, flag FROM t ORDER BY id').raw(), [
      ['a', 0],
      ['b', 1],
    ]);
    assert.deepEqual(await db.prepare('SELECT name FROM t ORDER BY id').raw({ columnNames: true }), [['name'], ['a'], ['b']]);
  });

  it('applies a batch whole or not at all', async () => {
    const db = await withTable();
    const results = await db.batch([db.prepare("INSERT INTO t (name) VALUES ('one')"), db.prepare('SELECT count(*) AS n FROM t')]);
    assert.deepEqual(results[1]!.results, [{ n: 1 }]);
    await assert.rejects(
      db.batch([db.prepare("INSERT INTO t (name) VALUES ('two')"), db.prepare("INSERT INTO t (name) VALUES ('one')")]),
      /UNIQUE constraint failed/,
    );
    assert.deepEqual(await db.prepare('SELECT name FROM t').raw(), [['one']]);
  });

  it('execs many statements as one unit, reporting a failure against line 1 as D1 does', async () => {
    const db = await d1At(tempDir('d1'));
    assert.equal((await db.exec('CREATE TABLE a (x);\nINSERT INTO a VALUES (1); INSERT INTO a VALUES (2)')).count, 3);
    assert.equal(await db.prepare('SELECT sum(x) AS s FROM a').first('s'), 3);
    await assert.rejects(db.exec('INSERT INTO a VALUES (3)\nINSERT INTO b VALUES (1)'), {
      message: 'D1_EXEC_ERROR: Error in line 1: INSERT INTO a VALUES (3): no such table: b: SQLITE_ERROR',
    });
    assert.equal(await db.prepare('SELECT count(*) AS n FROM a').first('n'), 2, 'nothing of the failed exec is applied');
  });

  it('keeps acknowledged writes across a crash', async () => {
    const dir = tempDir('d1');
    const db = await withTable(dir);
    await db.batch([db.prepare("INSERT INTO t (name) VALUES ('a')"), db.prepare("INSERT INTO t (name) VALUES ('b')")]);
    await db.exec("UPDATE t SET flag = 7 WHERE name = 'a'");
    const again = await d1At(dir);
    assert.deepEqual(await again.prepare('SELECT name, flag FROM t ORDER BY id').raw(), [
      ['a', 7],
      ['b', null],
    ]);
  });
});

describe('splitStatements', () => {
  it('splits at top-level semicolons only', () => {
    assert.deepEqual(splitStatements('SELECT \';\'; -- c;\nSELECT "a;b"; /* ; */'), ["SELECT ';'", '-- c;\nSELECT "a;b"']);
    const trigger = 'CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET x = CASE WHEN 1 THEN 2 END; DELETE FROM u; END';
    assert.deepEqual(splitStatements(`${trigger}; SELECT 1`), [trigger, 'SELECT 1']);
  });
});
