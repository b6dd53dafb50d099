// Instances put to sleep by the memory budget (docs/runtime.md, "Memory budget"), on a real
// namespace and sql.js: idle ones sleep and wake with every write they acknowledged, and a sweep
// over more than fit keeps the one that fits; one with a request running, background work or an
// alarm stays awake.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DurableObjectState } from '../../../../src/runtime/objects/durableObject';
import { DurableObjectNamespace } from '../../../../src/runtime/objects/namespace';
import { testPlatform } from '../../helpers/platform';
import { ManualTimers } from '../../helpers/manualTimers';

/** Lets go of what the objects hold (a request, background work). */
const holds: (() => void)[] = [];

class Rows {
  constructor(private readonly ctx: DurableObjectState) {
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS t (v INTEGER)');
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const v = url.searchParams.get('v');
    if (v !== null) this.ctx.storage.sql.exec('INSERT INTO t (v) VALUES (?)', Number(v));
    if (url.searchParams.has('alarm')) await this.ctx.storage.setAlarm(Date.now() + 3_600_000);
    if (url.searchParams.has('background')) this.ctx.waitUntil(new Promise<void>((resolve) => holds.push(resolve)));
    if (url.searchParams.has('hold')) await new Promise<void>((resolve) => holds.push(resolve));
    return Response.json(
      this.ctx.storage.sql
        .exec<{ v: number }>('SELECT v FROM t ORDER BY v')
        .toArray()
        .map((r) => r.v),
    );
  }
}

/**
 * A namespace whose budget holds about one instance (each costs about 0.4 MiB: instanceSleeper.ts),
 * and `settled()`: resolves once every instance put to sleep has closed its database (its
 * `evicted` event, which follows the close, has come for each wake but the current one).
 */
async function namespace(): Promise<{ ns: DurableObjectNamespace; timers: ManualTimers; settled: () => Promise<void> }> {
  const timers = new ManualTimers();
  const platform = await testPlatform({ timers, limits: { idleMs: Number.POSITIVE_INFINITY, memoryBudgetMiB: 0.5 } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-budget-'));
  const ns = new DurableObjectNamespace(platform, 'ROWS', 'Rows', Rows as never, () => ({}), dir);
  const open = new Map<string, number>();
  const changed = new Set<() => void>();
  platform.instanceEvents.event((event) => {
    if (event.kind !== 'woken' && event.kind !== 'evicted') return;
    open.set(event.name, (open.get(event.name) ?? 0) + (event.kind === 'woken' ? 1 : -1));
    for (const look of [...changed]) look();
  });
  const done = () => [...open].every(([name, count]) => count === (ns.existingHost(name)?.isAwake ? 1 : 0));
  const settled = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        changed.delete(look);
        reject(new Error(`instances put to sleep still open after 10 s: ${JSON.stringify([...open])}`));
      }, 10_000);
      const look = () => {
        if (!done()) return;
        clearTimeout(timer);
        changed.delete(look);
        resolve();
      };
      changed.add(look);
      look();
    });
  return { ns, timers, settled };
}

async function write(ns: DurableObjectNamespace, name: string, query: string): Promise<number[]> {
  const response = await ns.host(name).fetch(new Request(`http://do/?${query}`));
  assert.equal(response.status, 200);
  return (await response.json()) as number[];
}

const awake = (ns: DurableObjectNamespace, names: string[]): string[] => names.filter((name) => ns.existingHost(name)?.isAwake);

describe('memory budget on instances', () => {
  it('puts instances to sleep for the budget, and each wakes with every write it acknowledged', async () => {
    const { ns, timers, settled } = await namespace();
    const names = ['a', 'b', 'c', 'd', 'e'];
    for (let round = 0; round < 3; round++) {
      for (const name of names) {
        await write(ns, name, `v=${round}`);
        await timers.advance(0);
      }
    }
    await settled();
    // Three sweeps over five with room for one: the one that fit first stays awake, the others
    // go back to sleep after each write (least-recently-used would keep only e, waking all five each time).
    assert.deepEqual(awake(ns, names), ['a']);
    for (const name of names) assert.deepEqual(await write(ns, name, ''), [0, 1, 2]);
    await ns.shutdown();
  });

  it('keeps awake an instance with a request running, background work or an alarm armed', async () => {
    const { ns, timers, settled } = await namespace();
    const running = ns.host('running').fetch(new Request('http://do/?v=1&hold'));
    await write(ns, 'background', 'v=1&background');
    await write(ns, 'alarm', 'v=1&alarm');
    await write(ns, 'idle', 'v=1');
    await write(ns, 'latest', 'v=1');
    await timers.advance(0);
    await settled();
    // Those three alone are over the budget: every other one sleeps, the most recent too.
    assert.deepEqual(awake(ns, ['running', 'background', 'alarm', 'idle', 'latest']), ['running', 'background', 'alarm']);
    for (const release of holds.splice(0)) release();
    assert.deepEqual(await (await running).json(), [1]);
    await ns.shutdown();
  });
});
