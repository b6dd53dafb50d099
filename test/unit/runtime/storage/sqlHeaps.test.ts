// Separate sql.js heaps: at most `perHeap` databases in one, a heap dropped once its last database
// closes, and instances evicted from the namespace giving their heap back — so that memory can
// come back after a load (sql.js's one wasm heap never shrinks).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { DurableObjectState } from '../../../../src/runtime/objects/durableObject';
import { DurableObjectNamespace } from '../../../../src/runtime/objects/namespace';
import { SqlHeaps } from '../../../../src/runtime/storage/sqlHeaps';
import { separateSqlJsLoader } from '../../../../src/runtime/storage/sqljs';
import { testPlatform } from '../../helpers/platform';

class Counter {
  constructor(private readonly ctx: DurableObjectState) {
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS hits (n INTEGER)');
  }

  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === '/cache')
      return new Response(String(this.ctx.storage.sql.exec<{ cache_size: number }>('PRAGMA cache_size').one().cache_size));
    this.ctx.storage.sql.exec('INSERT INTO hits (n) VALUES (1)');
    return new Response(String(this.ctx.storage.sql.exec<{ c: number }>('SELECT count(*) AS c FROM hits').one().c));
  }
}

describe('separate sql.js heaps', () => {
  it('gives each load a module of its own, each with working databases', async () => {
    const load = separateSqlJsLoader();
    const [a, b] = await Promise.all([load(), load()]);
    assert.notEqual(a, b);
    assert.notEqual(a.Database, b.Database);
    for (const sql of [a, b]) {
      const db = new sql.Database();
      db.run('CREATE TABLE t (v TEXT)');
      db.run('INSERT INTO t VALUES (?)', ['x']);
      assert.deepEqual(db.exec('SELECT v FROM t')[0]?.values, [['x']]);
      db.close();
    }
  });

  it('puts at most perHeap databases in one heap and drops a heap once its last database is released', async () => {
    let loads = 0;
    const heaps = new SqlHeaps(async () => {
      loads++;
      return { loads } as unknown as SqlJsStatic;
    }, 2);
    const leases = [heaps.acquire(), heaps.acquire(), heaps.acquire()];
    assert.equal(loads, 2);
    assert.equal(heaps.heapCount, 2);
    assert.equal(await leases[0]!.sql, await leases[1]!.sql);
    assert.notEqual(await leases[1]!.sql, await leases[2]!.sql);
    leases[0]!.release();
    leases[0]!.release(); // twice counts once
    assert.equal(heaps.heapCount, 2);
    leases[1]!.release();
    assert.equal(heaps.heapCount, 1);
    leases[2]!.release();
    assert.equal(heaps.heapCount, 0);
    heaps.acquire();
    assert.equal(loads, 3, 'an emptied heap is not reused: a fresh one is loaded');
  });

  it('opens a database in the fullest heap with room, so that heaps held by a few stay packed', async () => {
    let loads = 0;
    const heaps = new SqlHeaps(async () => ({ heap: ++loads }) as unknown as SqlJsStatic, 3);
    const leases = Array.from({ length: 8 }, () => heaps.acquire()); // heaps 1 and 2 full, 3 holds two
    const heapOf = async (lease: { sql: Promise<SqlJsStatic> }) => ((await lease.sql) as unknown as { heap: number }).heap;
    assert.deepEqual(await Promise.all(leases.map(heapOf)), [1, 1, 1, 2, 2, 2, 3, 3]);
    // Kept for long by the budget: one database in heap 1, two in heap 2; the rest come and go.
    for (const i of [1, 2, 3]) leases[i]!.release();
    assert.equal(await heapOf(heaps.acquire()), 2, 'heap 2 (2 open) and 3 (2 open) tie; the first found of the fullest');
    assert.equal(await heapOf(heaps.acquire()), 3, 'then heap 3, the fullest with room');
    assert.equal(await heapOf(heaps.acquire()), 1, 'then heap 1, before a fourth heap is loaded');
    assert.equal(loads, 3);
    assert.equal(heaps.openCount, 8);
  });

  it('holds a heap while instances are awake and lets it go when they are evicted, their data kept', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-heaps-'));
    const heaps = new SqlHeaps(separateSqlJsLoader(), 2);
    const namespace = new DurableObjectNamespace(await testPlatform({ heaps }), 'COUNTER', 'Counter', Counter as never, () => ({}), dir);
    const names = ['a', 'b', 'c'];
    for (const name of names) assert.equal(await (await namespace.host(name).fetch(new Request('http://do/'))).text(), '1');
    assert.equal(heaps.heapCount, 2);
    assert.equal(heaps.openCount, 3);
    for (const name of names) await namespace.host(name).evict();
    assert.equal(heaps.heapCount, 0);
    assert.equal(heaps.openCount, 0);
    for (const name of names) assert.equal(await (await namespace.host(name).fetch(new Request('http://do/'))).text(), '2');
    assert.equal(heaps.openCount, 3);
    await namespace.shutdown();
    assert.equal(heaps.heapCount, 0);
  });
});

describe('dropped heaps', () => {
  it('says so once per heap dropped, so that a full collection can free it', async () => {
    let dropped = 0;
    const heaps = new SqlHeaps(
      async () => ({}) as SqlJsStatic,
      1,
      () => dropped++,
    );
    const [a, b] = [heaps.acquire(), heaps.acquire()];
    a.release();
    a.release();
    assert.equal(dropped, 1);
    b.release();
    assert.equal(dropped, 2);
  });
});

describe("a heap's page-cache budget", () => {
  it('gives each database its share, and a new share to all of them as databases open and close', () => {
    const heaps = new SqlHeaps(async () => ({}) as SqlJsStatic, 3, undefined, 1024);
    const seen: number[][] = [[], [], [], []];
    const leases = [heaps.acquire()];
    leases[0]!.followCacheSize((kib) => seen[0]!.push(kib));
    leases.push(heaps.acquire());
    leases[1]!.followCacheSize((kib) => seen[1]!.push(kib));
    leases.push(heaps.acquire());
    leases[2]!.followCacheSize((kib) => seen[2]!.push(kib));
    assert.deepEqual(seen.slice(0, 3), [[1024, 512, 256], [512, 256], [256]]);
    // A fourth database opens a second heap: the first heap's shares stay.
    leases.push(heaps.acquire());
    leases[3]!.followCacheSize((kib) => seen[3]!.push(kib));
    assert.deepEqual(seen[3], [1024]);
    assert.deepEqual(seen[0], [1024, 512, 256]);
    leases[2]!.release();
    assert.deepEqual(seen.slice(0, 3), [[1024, 512, 256, 512], [512, 256, 512], [256]], 'a released database hears nothing more');
    leases[2]!.followCacheSize((kib) => seen[2]!.push(kib));
    assert.deepEqual(seen[2], [256], 'nor after following again once released');
  });

  it("sets every awake instance's SQLite page cache to its heap's share", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-heaps-'));
    const heaps = new SqlHeaps(separateSqlJsLoader(), 4, undefined, 1024);
    const namespace = new DurableObjectNamespace(await testPlatform({ heaps }), 'COUNTER', 'Counter', Counter as never, () => ({}), dir);
    const cacheOf = async (name: string) => Number(await (await namespace.host(name).fetch(new Request('http://do/cache'))).text());
    assert.equal(await cacheOf('a'), -1024);
    for (const name of ['b', 'c']) await namespace.host(name).fetch(new Request('http://do/'));
    for (const name of ['a', 'b', 'c']) assert.equal(await cacheOf(name), -256);
    await namespace.host('c').evict();
    for (const name of ['a', 'b']) assert.equal(await cacheOf(name), -512);
    await namespace.shutdown();
    assert.equal(heaps.heapCount, 0);
  });
});
