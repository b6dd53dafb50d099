import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { statementKind } from '../../../../src/core/sqlStatementKind';
import { DurableDatabase } from '../../../../src/runtime/storage/durableDatabase';
import { loadSqlJs } from '../../../../src/runtime/storage/sqljs';

let sql: SqlJsStatic;
before(async () => {
  sql = await loadSqlJs();
});

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'hb-db-'));
const count = (db: DurableDatabase) => db.exec('SELECT count(*) FROM t').rows[0]![0];

describe('DurableDatabase', () => {
  it('keeps committed writes across a reopen (journal replay)', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    for (let i = 0; i < 10; i++) db.exec('INSERT INTO t (v) VALUES (?)', [`row ${i}`]);
    await db.commit();
    // No close: as if the process died right after the commit.
    const again = await DurableDatabase.open({ sql, dir });
    assert.equal(count(again), 10);
    await again.close();
  });

  it('loses writes that were never committed, and nothing else', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (v)');
    db.exec('INSERT INTO t VALUES (1)');
    await db.commit();
    db.exec('INSERT INTO t VALUES (2)');
    const again = await DurableDatabase.open({ sql, dir });
    assert.equal(count(again), 1);
    await again.close();
  });

  it('replays only the journal records newer than the snapshot', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (v)');
    db.exec('INSERT INTO t VALUES (1)');
    await db.commit();
    const oldJournal = fs.readFileSync(path.join(dir, 'journal-00000001.log'));
    await db.snapshot();
    db.exec('INSERT INTO t VALUES (2)');
    await db.commit();
    // As if the process died after the snapshot's rename but before the old journal was deleted.
    fs.writeFileSync(path.join(dir, 'journal-00000001.log'), oldJournal);
    const again = await DurableDatabase.open({ sql, dir });
    assert.deepEqual(again.exec('SELECT v FROM t ORDER BY v').rows, [[1], [2]]);
    await again.close();
  });

  it('loses no commit that races a snapshot', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (v)');
    const commits: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      db.exec('INSERT INTO t VALUES (?)', [i]);
      commits.push(db.commit());
      if (i % 37 === 0) commits.push(db.snapshot());
    }
    await Promise.all(commits);
    const again = await DurableDatabase.open({ sql, dir });
    assert.equal(count(again), 200);
    await again.close();
  });

  it('takes a snapshot by itself once the journal passes its threshold', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir, snapshotAfterBytes: 2000 });
    db.exec('CREATE TABLE t (v)');
    for (let i = 0; i < 50; i++) {
      db.exec('INSERT INTO t VALUES (?)', ['x'.repeat(100)]);
      await db.commit();
    }
    await db.close({ snapshot: false });
    assert.ok(fs.existsSync(path.join(dir, 'db.snapshot')));
    assert.ok(fs.readdirSync(dir).filter((f) => f.startsWith('journal-')).length <= 2);
    const again = await DurableDatabase.open({ sql, dir });
    assert.equal(count(again), 50);
    await again.close();
  });

  it('refuses a corrupted snapshot with a clear error, and leaves it on disk', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (v)');
    db.exec('INSERT INTO t VALUES (1)');
    await db.close();
    const file = path.join(dir, 'db.snapshot');
    const data = fs.readFileSync(file);
    data[data.length - 100] = data[data.length - 100]! ^ 0x01;
    fs.writeFileSync(file, data);
    await assert.rejects(() => DurableDatabase.open({ sql, dir }), /db\.snapshot: snapshot checksum mismatch; the file was left untouched/);
    assert.deepEqual(fs.readFileSync(file), data);
  });

  it('drops a torn journal tail at open and says how many bytes', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (v)');
    db.exec('INSERT INTO t VALUES (1)');
    await db.commit();
    fs.appendFileSync(path.join(dir, 'journal-00000001.log'), Buffer.from([200, 0, 0, 0, 1, 2, 3]));
    const again = await DurableDatabase.open({ sql, dir });
    assert.equal(again.droppedBytes, 7);
    assert.equal(count(again), 1);
    await again.close();
  });

  it('rolls back only the inner of two nested transactionSync calls when it throws', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (v)');
    db.transactionSync(() => {
      db.exec('INSERT INTO t VALUES (1)');
      assert.throws(() =>
        db.transactionSync(() => {
          db.exec('INSERT INTO t VALUES (2)');
          throw new Error('inner');
        }),
      );
      db.transactionSync(() => db.exec('INSERT INTO t VALUES (3)'));
    });
    await db.commit();
    const again = await DurableDatabase.open({ sql, dir });
    assert.deepEqual(again.exec('SELECT v FROM t ORDER BY v').rows, [[1], [3]]);
    assert.deepEqual(db.exec('SELECT v FROM t ORDER BY v').rows, [[1], [3]]);
    await again.close();
    await db.close();
  });

  it('rolls a failed transactionSync back in memory and in the journal', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (v)');
    assert.throws(
      () =>
        db.transactionSync(() => {
          db.exec('INSERT INTO t VALUES (1)');
          throw new Error('abort');
        }),
      /abort/,
    );
    db.transactionSync(() => db.exec('INSERT INTO t VALUES (2)'));
    await db.commit();
    assert.deepEqual(db.exec('SELECT v FROM t').rows, [[2]]);
    const again = await DurableDatabase.open({ sql, dir });
    assert.deepEqual(again.exec('SELECT v FROM t').rows, [[2]]);
    await again.close();
  });

  it('refuses SQL transaction statements, as Durable Objects do', async () => {
    const db = await DurableDatabase.open({ sql, dir: tempDir() });
    assert.throws(() => db.exec('BEGIN TRANSACTION'), /transactionSync/);
    await db.close();
  });

  it('counts rows written by DML only', async () => {
    const db = await DurableDatabase.open({ sql, dir: tempDir() });
    db.exec('CREATE TABLE t (v)');
    assert.equal(db.exec('INSERT INTO t VALUES (1), (2)').rowsWritten, 2);
    assert.equal(db.exec('CREATE INDEX i ON t (v)').rowsWritten, 0);
    assert.equal(db.exec('SELECT * FROM t').rowsWritten, 0);
    assert.equal(db.exec('UPDATE t SET v = 3 WHERE v = 9').rowsWritten, 0);
    await db.close();
  });

  it("measures its memory as the file's pages, again after new writes only, through a snapshot and a page size change", async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    const fileBytes = () => Number(db.exec('PRAGMA page_count').rows[0]![0]) * Number(db.exec('PRAGMA page_size').rows[0]![0]);
    db.setCacheSize(64);
    db.exec('CREATE TABLE t (v TEXT)');
    const empty = db.memoryBytes();
    assert.equal(empty, 2 * fileBytes(), 'a small file: its pages once in the file, once in the cache');
    for (let i = 0; i < 100; i++) db.exec('INSERT INTO t VALUES (?)', ['x'.repeat(3000)]);
    const grown = db.memoryBytes();
    assert.equal(grown, fileBytes() + 64 * 1024, 'past the cache size, the cache holds 64 KiB');
    assert.ok(grown > empty * 10, `${grown} after 300 KB of rows, ${empty} before`);
    assert.equal(db.memoryBytes(), grown, 'asked again without a write: the same');
    await db.commit();
    await db.snapshot(); // releases every compiled statement: measuring must compile its own again
    db.exec('DELETE FROM t');
    db.exec('PRAGMA page_size = 1024');
    db.exec('VACUUM');
    assert.equal(db.memoryBytes(), 2 * fileBytes(), 'smaller pages, fewer of them');
    assert.ok(db.memoryBytes() < empty, 'one page of 1 KiB per table, where there were 4 KiB');
    await db.close();
    assert.equal(db.memoryBytes(), 0, 'closed: holds nothing');
  });
});

describe('DurableDatabase: what it journals, by statement kind', () => {
  it('journals CREATE … IF NOT EXISTS only when it creates something, as an agent runs its schema at every wake', async () => {
    const dir = tempDir();
    const journalBytes = () =>
      fs
        .readdirSync(dir)
        .filter((f) => f.startsWith('journal-'))
        .reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    const onStart = (db: DurableDatabase) => {
      db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)');
      db.exec('CREATE INDEX IF NOT EXISTS t_v ON t (v)');
    };
    const first = await DurableDatabase.open({ sql, dir });
    onStart(first);
    first.exec('INSERT INTO t (v) VALUES (?)', ['a']);
    await first.commit();
    await first.close({ snapshot: false });
    const created = journalBytes();
    for (let wake = 0; wake < 3; wake++) {
      const woken = await DurableDatabase.open({ sql, dir });
      const writes = woken.writeCount;
      onStart(woken);
      assert.equal(woken.writeCount, writes, 'nothing for the output gate to wait on');
      await woken.commit();
      await woken.close({ snapshot: false });
    }
    assert.equal(journalBytes(), created, 'the wakes journaled nothing');
    // What the first wake created is still replayed: the table, its index and its row.
    const last = await DurableDatabase.open({ sql, dir });
    assert.equal(count(last), 1);
    assert.deepEqual(last.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 't_v'").rows, [['t_v']]);
    // A new table under IF NOT EXISTS is a change: journaled, and back after a reopen.
    last.exec('CREATE TABLE IF NOT EXISTS u (w)');
    last.exec('INSERT INTO u VALUES (1), (2)');
    await last.commit();
    await last.close({ snapshot: false });
    const again = await DurableDatabase.open({ sql, dir });
    assert.deepEqual(again.exec('SELECT count(*) FROM u').rows, [[2]]);
    await again.close();
  });

  it('replays many records of the same statements, with DDL between them, to the same rows', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    for (let i = 0; i < 50; i++) {
      db.exec('INSERT INTO t (v) VALUES (?)', [`row ${i}`]);
      if (i === 20) db.exec('ALTER TABLE t ADD COLUMN w INTEGER DEFAULT 7');
      db.exec('DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY id DESC LIMIT -1 OFFSET 30)');
      await db.commit();
    }
    const expected = db.exec('SELECT id, v, w FROM t ORDER BY id').rows;
    await db.close({ snapshot: false });
    const reopened = await DurableDatabase.open({ sql, dir });
    assert.deepEqual(reopened.exec('SELECT id, v, w FROM t ORDER BY id').rows, expected);
    assert.equal(expected.length, 30);
    await reopened.close();
  });

  it('journals a PRAGMA that sets a value in call form, so a restart keeps it', async () => {
    assert.equal(statementKind('PRAGMA user_version(2)'), 'other');
    assert.equal(statementKind('PRAGMA main.user_version'), 'read');
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('PRAGMA user_version(7)');
    await db.commit();
    // No closing snapshot: only the journal can bring the value back.
    await db.close({ snapshot: false });
    const reopened = await DurableDatabase.open({ sql, dir });
    assert.deepEqual(reopened.exec('PRAGMA user_version').rows, [[7]]);
    await reopened.close();
  });

  it('keeps the page cache size it is given across snapshots, without journaling it', async () => {
    const dir = tempDir();
    const db = await DurableDatabase.open({ sql, dir });
    const cacheSize = (d: DurableDatabase) => d.exec('PRAGMA cache_size').rows[0]![0];
    assert.equal(cacheSize(db), -2000);
    db.setCacheSize(128);
    assert.equal(cacheSize(db), -128);
    db.exec('CREATE TABLE t (v TEXT)');
    for (let i = 0; i < 200; i++) db.exec('INSERT INTO t VALUES (?)', ['x'.repeat(3000)]);
    await db.commit();
    await db.snapshot();
    assert.equal(cacheSize(db), -128, 'a snapshot keeps it');
    assert.equal(count(db), 200, 'the rows are whole with a cache smaller than the database');
    await db.close();
    db.setCacheSize(64); // once closed: ignored, no throw
    const again = await DurableDatabase.open({ sql, dir });
    assert.equal(cacheSize(again), -2000, 'it is how this process holds the database, not part of it');
    assert.equal(count(again), 200);
    await again.close();
  });
});
