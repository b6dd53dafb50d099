import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { StorageCorruptError } from '../../../../src/runtime/errors';
import { DurableDatabase } from '../../../../src/runtime/storage/durableDatabase';
import { encodeRecord } from '../../../../src/runtime/storage/journal';
import { SharedLog } from '../../../../src/runtime/storage/sharedLog';
import { decodeLog, encodeCommit, LOG_MAGIC, logFileName } from '../../../../src/runtime/storage/sharedLogFormat';
import { loadSqlJs } from '../../../../src/runtime/storage/sqljs';

let sql: SqlJsStatic;
before(async () => {
  sql = await loadSqlJs();
});

/** A data folder and its shared log, as a serve process has them; `again` is the next process's. */
function dataFolder(limitBytes?: number) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-log-'));
  const logDir = path.join(root, '_hookbench', 'log');
  const make = () => new SharedLog(root, logDir, limitBytes);
  return { root, logDir, log: make(), again: make, instance: (i: number) => path.join(root, 'ns', `e${i}`) };
}

const logFiles = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.wal'));
const commitsIn = (dir: string) => logFiles(dir).flatMap((f) => decodeLog(fs.readFileSync(path.join(dir, f)), f));
const rows = (db: DurableDatabase) => db.exec('SELECT v FROM t ORDER BY v').rows.map(([v]) => v);

async function openAll(log: SharedLog, dirs: string[]): Promise<DurableDatabase[]> {
  return Promise.all(dirs.map((dir) => DurableDatabase.open({ sql, dir, log })));
}

/** Every instance's journals cut back to nothing: a power loss may drop writes that were never synced. */
function loseUnsyncedJournals(dirs: string[]): void {
  for (const dir of dirs) for (const f of fs.readdirSync(dir)) if (f.startsWith('journal-')) fs.truncateSync(path.join(dir, f), 0);
}

describe('SharedLog', () => {
  it('makes what ten databases commit in one turn durable with one commit of the log', async () => {
    const folder = dataFolder();
    const dirs = Array.from({ length: 10 }, (_, i) => folder.instance(i));
    const dbs = await openAll(folder.log, dirs);
    // A journal's first commit opens its file through the thread pool, so on a busy machine the
    // first commits may reach the log in two turns; from then on its descriptor is at hand.
    for (const db of dbs) db.exec('CREATE TABLE t (v)');
    await Promise.all(dbs.map((db) => db.commit()));
    const before = commitsIn(folder.logDir).length;
    dbs.forEach((db, i) => db.exec('INSERT INTO t VALUES (?)', [i]));
    await Promise.all(dbs.map((db) => db.commit()));
    const commits = commitsIn(folder.logDir).slice(before);
    assert.equal(commits.length, 1);
    assert.deepEqual(commits[0]!.map((e) => e.id).sort(), dirs.map((d) => path.relative(folder.root, d)).sort());
  });

  it('restores every acknowledged commit when the journals lost what was never synced', async () => {
    const folder = dataFolder();
    const dirs = [folder.instance(1), folder.instance(2), folder.instance(3)];
    const dbs = await openAll(folder.log, dirs);
    for (const db of dbs) db.exec('CREATE TABLE t (v)');
    for (let round = 0; round < 5; round++) {
      dbs.forEach((db, i) => db.exec('INSERT INTO t VALUES (?)', [10 * i + round]));
      await Promise.all(dbs.map((db) => db.commit()));
    }
    // No close: the process died, and the machine with it.
    loseUnsyncedJournals(dirs);
    const reopened = await openAll(folder.again(), dirs);
    assert.deepEqual(
      reopened.map(rows),
      [0, 1, 2].map((i) => [0, 1, 2, 3, 4].map((r) => 10 * i + r)),
    );
    assert.deepEqual(logFiles(folder.logDir).length, 1, 'the recovered log files are gone; one new file is open');
  });

  it('appends nothing twice when a journal already holds what the log holds', async () => {
    const folder = dataFolder();
    const [db] = await openAll(folder.log, [folder.instance(1)]);
    db!.exec('CREATE TABLE t (v)');
    db!.exec('INSERT INTO t VALUES (1)');
    await db!.commit();
    const journal = path.join(folder.instance(1), 'journal-00000001.log');
    const before = fs.statSync(journal).size;
    const [reopened] = await openAll(folder.again(), [folder.instance(1)]);
    assert.equal(fs.statSync(journal).size, before);
    assert.deepEqual(rows(reopened!), [1]);
  });

  it('lets a database close and reopen on the same log (eviction), and holds nothing once closed', async () => {
    const folder = dataFolder();
    const [db] = await openAll(folder.log, [folder.instance(1)]);
    db!.exec('CREATE TABLE t (v)');
    db!.exec('INSERT INTO t VALUES (1)');
    await db!.commit();
    await db!.close();
    const [woken] = await openAll(folder.log, [folder.instance(1)]);
    woken!.exec('INSERT INTO t VALUES (2)');
    await woken!.commit();
    await woken!.close();
    await folder.log.close();
    assert.deepEqual(logFiles(folder.logDir), []);
    const [last] = await openAll(folder.again(), [folder.instance(1)]);
    assert.deepEqual(rows(last!), [1, 2]);
  });

  it('deletes a full log file once the journals it covers are synced, and loses nothing', async () => {
    const folder = dataFolder(2048);
    const dirs = [folder.instance(1), folder.instance(2)];
    const dbs = await openAll(folder.log, dirs);
    for (const db of dbs) db.exec('CREATE TABLE t (v)');
    for (let i = 0; i < 60; i++) {
      for (const db of dbs) db.exec('INSERT INTO t VALUES (?)', [i]);
      await Promise.all(dbs.map((db) => db.commit()));
    }
    await folder.log.close();
    assert.deepEqual(logFiles(folder.logDir), []);
    const reopened = await openAll(folder.again(), dirs);
    for (const db of reopened) assert.equal(rows(db).length, 60);
  });

  it('opens a data folder written before the shared log, from its journals', async () => {
    const folder = dataFolder();
    const old = await DurableDatabase.open({ sql, dir: folder.instance(1) });
    old.exec('CREATE TABLE t (v)');
    old.exec('INSERT INTO t VALUES (7)');
    await old.commit();
    const [db] = await openAll(folder.log, [folder.instance(1)]);
    assert.deepEqual(rows(db!), [7]);
  });

  it('drops a torn final commit (never acknowledged) and reports a bad commit followed by more', () => {
    const good = encodeCommit([{ id: 'ns/e1', frames: Buffer.from('x') }]);
    const torn = Buffer.concat([LOG_MAGIC, good, good.subarray(0, good.length - 1)]);
    assert.equal(decodeLog(torn, 'log').length, 1);
    const bad = Buffer.from(good);
    bad.writeUInt8(bad.readUInt8(bad.length - 1) ^ 1, bad.length - 1);
    assert.throws(() => decodeLog(Buffer.concat([LOG_MAGIC, bad, good]), 'log'), StorageCorruptError);
  });

  it('recovers the later of two records with one sequence number (a refused write, then the one that took its place)', async () => {
    const folder = dataFolder();
    const dir = folder.instance(1);
    const id = path.relative(folder.root, dir);
    const record = (seq: number, sql: string) => encodeRecord({ seq, statements: [{ sql, params: [] }] });
    fs.mkdirSync(folder.logDir, { recursive: true });
    const commits = [
      encodeCommit([{ id, frames: record(1, 'CREATE TABLE t (v)') }]),
      encodeCommit([{ id, frames: record(2, 'INSERT INTO t VALUES (1)') }]),
      encodeCommit([{ id, frames: record(2, 'INSERT INTO t VALUES (2)') }]),
    ];
    fs.writeFileSync(path.join(folder.logDir, logFileName(1)), Buffer.concat([LOG_MAGIC, ...commits]));
    const [db] = await openAll(folder.log, [dir]);
    assert.deepEqual(rows(db!), [2]);
  });

  it('refuses a log that names a folder outside the data folder', async () => {
    const folder = dataFolder();
    fs.mkdirSync(folder.logDir, { recursive: true });
    fs.writeFileSync(path.join(folder.logDir, logFileName(1)), Buffer.concat([LOG_MAGIC, encodeCommit([{ id: '../outside', frames: Buffer.alloc(0) }])]));
    await assert.rejects(folder.log.ready(), /not a folder inside the data folder/);
    assert.equal(fs.existsSync(path.join(folder.root, '..', 'outside')), false);
  });
});
