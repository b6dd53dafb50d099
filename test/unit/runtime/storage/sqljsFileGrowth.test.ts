// sql.js's in-memory files grow by an eighth (at least 16 KiB) instead of doubling, in the heaps
// `separateSqlJsLoader` gives (src/runtime/storage/sqljs.ts): the installed release is patched, and a
// database's bytes stay whole across growth, snapshot and reopen.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DurableDatabase } from '../../../../src/runtime/storage/durableDatabase';
import { gentlerFileGrowth, separateSqlJsLoader } from '../../../../src/runtime/storage/sqljs';

const growthStep = (capacity: number): number => {
  const { source, patched } = gentlerFileGrowth('g=Math.max(g,m*(m<1048576?2:1.125)>>>0)');
  assert.ok(patched);
  return new Function('g', 'm', `${source};return g`)(0, capacity) as number;
};

describe("sql.js's file growth", () => {
  it('patches the installed sql.js, once', () => {
    const script = fs.readFileSync(require.resolve('sql.js/dist/sql-wasm.js'), 'utf8');
    const { source, patched } = gentlerFileGrowth(script);
    assert.equal(patched, true, 'the installed sql.js no longer has the doubling step: see gentlerFileGrowth');
    assert.ok(source.includes('Math.max(16384,'));
    assert.ok(!/\*\(\w+<1048576\?2:1\.125\)/.test(source));
  });

  it('grows a buffer by an eighth, at least 16 KiB', () => {
    assert.equal(growthStep(0), 16384);
    assert.equal(growthStep(64 * 1024), 80 * 1024);
    assert.equal(growthStep(512 * 1024), 576 * 1024);
    assert.equal(growthStep(8 * 1024 * 1024), 9 * 1024 * 1024);
  });

  it('leaves a script without that step as it is', () => {
    assert.deepEqual(gentlerFileGrowth('a=b*2'), { source: 'a=b*2', patched: false });
    const twice = 'm*(m<1048576?2:1.125)>>>0;n*(n<1048576?2:1.125)>>>0';
    assert.deepEqual(gentlerFileGrowth(twice), { source: twice, patched: false });
  });

  it("keeps a database's bytes whole as its file grows, through a snapshot and a reopen in another heap", async () => {
    const load = separateSqlJsLoader();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-growth-'));
    const row = (i: number) => `${i}:`.padEnd(700 + ((i * 37) % 900), String.fromCharCode(97 + (i % 26)));
    const rows = async (db: DurableDatabase) => db.exec('SELECT id, v FROM t ORDER BY id').rows;
    const db = await DurableDatabase.open({ sql: await load(), dir });
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    // About 2.3 MiB, a row at a time: through the 16 KiB steps, the eighths, and past 1 MiB.
    for (let i = 0; i < 2000; i++) {
      db.exec('INSERT INTO t (id, v) VALUES (?, ?)', [i, row(i)]);
      if (i % 50 === 0) await db.commit();
    }
    await db.commit();
    await db.snapshot();
    const expected = Array.from({ length: 2000 }, (_, i) => [i, row(i)]);
    assert.deepEqual(await rows(db), expected);
    await db.close();
    // Reopened from an exact-size file, which then grows again.
    const again = await DurableDatabase.open({ sql: await load(), dir });
    assert.deepEqual(again.exec('PRAGMA integrity_check').rows, [['ok']]);
    for (let i = 2000; i < 2300; i++) again.exec('INSERT INTO t (id, v) VALUES (?, ?)', [i, row(i)]);
    await again.commit();
    assert.deepEqual(await rows(again), [...expected, ...Array.from({ length: 300 }, (_, i) => [2000 + i, row(2000 + i)])]);
    assert.deepEqual(again.exec('PRAGMA integrity_check').rows, [['ok']]);
    await again.close();
  });
});
