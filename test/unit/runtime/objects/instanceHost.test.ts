// Instances closing while requests arrive. Evicted: the request waits for the old database to
// finish closing (commit, snapshot, old journals deleted) before it opens the folder again, so
// nothing acknowledged on either side is lost. Shut down (reload, stop): running requests finish,
// later ones are refused rather than opening a second database on the same folder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { nullLogger } from '../../../../src/core/log';
import type { DurableObjectState } from '../../../../src/runtime/objects/durableObject';
import type { InstanceHost } from '../../../../src/runtime/objects/instanceHost';
import { DurableObjectNamespace } from '../../../../src/runtime/objects/namespace';
import { testPlatform } from '../../helpers/platform';

/** A request with `?held` runs until the test lets it go: `entered` once it runs inside the object. */
let held = { entered: () => undefined as void, released: Promise.resolve() };
function holdNextRequest(): { entered: Promise<void>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const entered = new Promise<void>((resolve) => (held = { entered: resolve, released }));
  return { entered, release };
}

class Rows {
  constructor(private readonly ctx: DurableObjectState) {
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS t (v INTEGER)');
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.searchParams.has('held')) {
      held.entered();
      await held.released;
    }
    const v = url.searchParams.get('v');
    if (v !== null) this.ctx.storage.sql.exec('INSERT INTO t (v) VALUES (?)', Number(v));
    // Work after the response: its write is still in flight when the instance is evicted.
    // Work after the response that never settles (a user's bug): shutdown must not wait for it forever.
    if (url.searchParams.has('hang')) this.ctx.waitUntil(new Promise(() => undefined));
    const later = url.searchParams.get('later');
    if (later !== null)
      this.ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 1)).then(() => this.ctx.storage.sql.exec('INSERT INTO t (v) VALUES (?)', Number(later))));
    const rows = this.ctx.storage.sql.exec<{ v: number }>('SELECT v FROM t ORDER BY v').toArray();
    return Response.json(rows.map((r) => r.v));
  }
}

async function host(dir: string, logger = nullLogger): Promise<InstanceHost> {
  const namespace = new DurableObjectNamespace(await testPlatform({ logger }), 'ROWS', 'Rows', Rows as never, () => ({}), dir);
  return namespace.host('one');
}

describe('instance host', () => {
  it('keeps every acknowledged write when a request arrives while the instance is being evicted', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-evict-race-'));
    const first = await host(dir);
    const acknowledged: number[] = [];
    const write = async (h: InstanceHost, query: string, ...values: number[]) => {
      const response = await h.fetch(new Request(`http://do/?${query}`));
      assert.equal(response.status, 200);
      acknowledged.push(...values);
    };
    for (let round = 0; round < 40; round++) {
      const v = round * 3;
      await write(first, `v=${v}&later=${v + 1}`, v, v + 1);
      await new Promise((resolve) => setTimeout(resolve, 2));
      // The eviction commits the later write and snapshots; the request lands in the middle of it.
      await Promise.all([first.evict(), write(first, `v=${v + 2}`, v + 2)]);
    }
    await first.shutdown();
    const reopened = await host(dir);
    const stored = (await (await reopened.fetch(new Request('http://do/'))).json()) as number[];
    await reopened.shutdown();
    assert.deepEqual(
      stored,
      [...acknowledged].sort((a, b) => a - b),
    );
  });
});

describe('instance host shutdown', () => {
  it('lets a running request finish and store its write, then refuses new work instead of reopening', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-shutdown-drain-'));
    const first = await host(dir);
    await first.fetch(new Request('http://do/?v=1'));
    const running = holdNextRequest();
    const slow = first.fetch(new Request('http://do/?held&v=2'));
    await running.entered;
    const stopping = first.shutdown();
    await assert.rejects(first.fetch(new Request('http://do/?v=3')), { name: 'InstanceClosedError' });
    running.release();
    assert.deepEqual(await (await slow).json(), [1, 2]);
    await stopping;
    await assert.rejects(first.fetch(new Request('http://do/?v=4')), { name: 'InstanceClosedError' });
    const reopened = await host(dir);
    assert.deepEqual(await (await reopened.fetch(new Request('http://do/'))).json(), [1, 2]);
    await reopened.shutdown();
  });
});

describe('deleting an instance', () => {
  it('refuses requests while its folder is deleted, asleep or awake, then starts afresh', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-destroy-'));
    const platform = await testPlatform();
    const namespace = () => new DurableObjectNamespace(platform, 'ROWS', 'Rows', Rows as never, () => ({}), dir);
    const writer = namespace();
    await writer.getByName('awake').fetch('http://do/?v=1');
    await writer.getByName('asleep').fetch('http://do/?v=1');
    await writer.shutdown();
    // A new namespace over the same folder: 'asleep' has data on disk and no host yet.
    const ns = namespace();
    await ns.getByName('awake').fetch('http://do/?v=2');
    for (const name of ['awake', 'asleep']) {
      const destroying = ns.destroy(name);
      await assert.rejects(ns.getByName(name).fetch('http://do/?v=9'), { name: 'InstanceClosedError' });
      assert.equal(await destroying, true);
      assert.deepEqual(await (await ns.getByName(name).fetch('http://do/?v=3')).json(), [3]);
    }
    await ns.shutdown();
  });

  it('closes within its drain time when background work never settles, keeping what was acknowledged', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-hang-'));
    const warnings: string[] = [];
    const hanging = await host(dir, { ...nullLogger, warn: (line: string) => warnings.push(line) });
    assert.equal((await hanging.fetch(new Request('http://do/?v=7&hang'))).status, 200);
    await hanging.shutdown(50);
    assert.match(warnings.join('\n'), /1 background task\(s\) still running after 50 ms/);
    const reopened = await host(dir);
    assert.deepEqual(await (await reopened.fetch(new Request('http://do/'))).json(), [7]);
    await reopened.shutdown();
  });
  it('lets go of each answer once given while the instance stays awake', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const h = await host(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-answers-')));
    const answers: WeakRef<Response>[] = [];
    for (let i = 0; i < 50; i++) {
      const response = await h.fetch(new Request(`http://do/?v=${i}`));
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      answers.push(new WeakRef(response));
    }
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    const kept = answers.filter((answer) => answer.deref() !== undefined).length;
    // A race against a promise that settles only on a reset kept every one of them (50).
    assert.ok(kept <= 2, `${kept} of 50 answers still held by the live instance`);
    await h.shutdown();
  });
});
