// Durable Object alarms on real sql.js files with a manual clock: due alarms run once with
// retryCount 0, a throwing handler is retried after 2 s, 4 s, 8 s … with retryCount/isRetry, six
// retries then dropped; an alarm set in the handler is queued; an alarm survives a restart and
// the instance is woken for it without a request.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DurableObject } from '../../../../src/runtime/objects/durableObject';
import { DurableObjectNamespace } from '../../../../src/runtime/objects/namespace';
import { ManualTimers, settle } from '../../helpers/manualTimers';
import { testPlatform } from '../../helpers/platform';

interface Env {
  failures: number;
  seen: { retryCount: number; isRetry: boolean; at: number; alarmInside: number | null }[];
  now: () => number;
}

class Alarmed extends DurableObject<Env> {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const at = url.searchParams.get('at');
    if (at !== null) await this.ctx.storage.setAlarm(Number(at));
    if (url.searchParams.has('delete')) await this.ctx.storage.deleteAlarm();
    return Response.json({ alarm: await this.ctx.storage.getAlarm(), runs: (await this.ctx.storage.get<number>('runs')) ?? 0 });
  }

  async alarm(info: { retryCount: number; isRetry: boolean }): Promise<void> {
    this.env.seen.push({ ...info, at: this.env.now(), alarmInside: await this.ctx.storage.getAlarm() });
    if (this.env.failures > 0) {
      this.env.failures--;
      throw new Error('flaky');
    }
    this.ctx.storage.put('runs', (((await this.ctx.storage.get('runs')) as number | undefined) ?? 0) + 1);
    if (this.env.seen.length === 1 && (await this.ctx.storage.get('again'))) await this.ctx.storage.setAlarm(this.env.now() + 1000);
  }
}

async function setup(dir: string, timers: ManualTimers, env: Env) {
  // Never evicted for idleness, as when the idle timer ran on real time: this clock moves for alarms.
  const platform = await testPlatform({ timers, limits: { idleMs: Number.POSITIVE_INFINITY } });
  return new DurableObjectNamespace(platform, 'ALARMED', 'Alarmed', Alarmed as never, () => env, dir);
}

const get = async (ns: DurableObjectNamespace, query = '') =>
  (await ns.getByName('a').fetch(`http://do/?${query}`)).json() as Promise<{ alarm: number | null; runs: number }>;

describe('alarms', () => {
  it('runs a due alarm once, with getAlarm() null inside the handler, and deletes it', async () => {
    const timers = new ManualTimers();
    const env: Env = { failures: 0, seen: [], now: timers.now };
    const ns = await setup(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-alarm-')), timers, env);
    const at = timers.now() + 5000;
    assert.deepEqual(await get(ns, `at=${at}`), { alarm: at, runs: 0 });
    await timers.advance(4999);
    assert.equal(env.seen.length, 0);
    await timers.advance(1);
    assert.deepEqual(env.seen, [{ retryCount: 0, isRetry: false, at, alarmInside: null }]);
    assert.deepEqual(await get(ns), { alarm: null, runs: 1 });
    await ns.shutdown();
  });

  it('fires an alarm set in the past at once', async () => {
    const timers = new ManualTimers();
    const env: Env = { failures: 0, seen: [], now: timers.now };
    const ns = await setup(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-alarm-')), timers, env);
    await get(ns, `at=${timers.now() - 60_000}`);
    await timers.advance(0);
    assert.equal(env.seen.length, 1);
    assert.deepEqual(await get(ns), { alarm: null, runs: 1 });
    await ns.shutdown();
  });

  it('retries a throwing alarm with backoff 2 s, 4 s, 8 s and passes retryCount and isRetry', async () => {
    const timers = new ManualTimers();
    const env: Env = { failures: 3, seen: [], now: timers.now };
    const ns = await setup(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-alarm-')), timers, env);
    const start = timers.now();
    await get(ns, `at=${start}`);
    await timers.advance(60_000);
    assert.deepEqual(
      env.seen.map((s) => [s.retryCount, s.isRetry, s.at - start]),
      [
        [0, false, 0],
        [1, true, 2000],
        [2, true, 6000],
        [3, true, 14000],
      ],
    );
    assert.deepEqual(await get(ns), { alarm: null, runs: 1 });
    await ns.shutdown();
  });

  it('gives up after six retries and deletes the alarm', async () => {
    const timers = new ManualTimers();
    const env: Env = { failures: 100, seen: [], now: timers.now };
    const ns = await setup(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-alarm-')), timers, env);
    await get(ns, `at=${timers.now()}`);
    await timers.advance(10 * 60_000);
    assert.deepEqual(
      env.seen.map((s) => s.retryCount),
      [0, 1, 2, 3, 4, 5, 6],
    );
    assert.deepEqual(await get(ns), { alarm: null, runs: 0 });
    assert.equal(timers.scheduled, 0);
    await ns.shutdown();
  });

  it('does not run an alarm deleted before it is due', async () => {
    const timers = new ManualTimers();
    const env: Env = { failures: 0, seen: [], now: timers.now };
    const ns = await setup(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-alarm-')), timers, env);
    await get(ns, `at=${timers.now() + 1000}`);
    assert.deepEqual(await get(ns, 'delete=1'), { alarm: null, runs: 0 });
    await timers.advance(5000);
    assert.equal(env.seen.length, 0);
    await ns.shutdown();
  });

  it('survives a restart: the new process wakes the instance for its alarm without a request', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-alarm-restart-'));
    const timers = new ManualTimers();
    const env: Env = { failures: 0, seen: [], now: timers.now };
    const first = await setup(dir, timers, env);
    await get(first, `at=${timers.now() + 30_000}`);
    await first.shutdown();
    await timers.advance(60_000);
    assert.equal(env.seen.length, 0, 'nothing runs while no process holds the instance');
    const second = await setup(dir, timers, env);
    await second.resumeAlarms();
    await timers.advance(0);
    await settle();
    assert.equal(env.seen.length, 1);
    assert.equal(env.seen[0]!.retryCount, 0);
    assert.deepEqual(await get(second), { alarm: null, runs: 1 });
    await second.shutdown();
  });
});
