// Cron triggers as WorkerBindings arms them: scheduled() at each cron time of an injected clock,
// with workerd's controller, re-armed after each run (and across Node's 24.8-day timer cap).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger, type Logger } from '../../../../src/core/log';
import type { BindingsConfig } from '../../../../src/core/workerConfig/bindingsConfig';
import { Entrypoints } from '../../../../src/runtime/bindings/entrypoints';
import { WorkerBindings } from '../../../../src/runtime/bindings/workerBindings';
import { manualTimers, settle, sqlJs, tempDir } from './helpers';
import type { ManualTimers } from '../../helpers/manualTimers';
import { testPlatform } from '../../helpers/platform';

const config = (crons: string[]): BindingsConfig => ({
  name: 'cron-test',
  kvNamespaces: [],
  d1Databases: [],
  r2Buckets: [],
  queueProducers: [],
  queueConsumers: [],
  services: [],
  crons,
});

interface Seen {
  readonly cron: string;
  readonly at: string;
  readonly keys: string[];
  readonly envGiven: boolean;
}

async function bindingsWith(
  crons: string[],
  time: ManualTimers,
  scheduled: (controller: Record<string, unknown>) => void | Promise<void>,
  logger: Logger = nullLogger,
) {
  const seen: Seen[] = [];
  const env = { VAR: 'x' };
  const exports = {
    default: {
      async scheduled(controller: Record<string, unknown>, givenEnv: unknown) {
        seen.push({
          cron: String(controller['cron']),
          at: new Date(controller['scheduledTime'] as number).toISOString(),
          keys: Object.keys(controller).sort(),
          envGiven: givenEnv === env,
        });
        await scheduled(controller);
      },
    },
  };
  const entrypoints = new Entrypoints(exports, env, () => ({ waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} }));
  const platform = await testPlatform({ dataDir: tempDir('cron'), sql: await sqlJs(), logger, timers: time });
  const bindings = new WorkerBindings(platform, { config: config(crons), entrypoints });
  await bindings.start();
  return { bindings, seen };
}

describe('cron triggers (WorkerBindings)', () => {
  it('runs scheduled() at each cron time with cron, scheduledTime and noRetry, and re-arms', async () => {
    const time = manualTimers(); // 2026-01-01T00:00:00Z, a Thursday
    const { bindings, seen } = await bindingsWith(['*/5 * * * *', '30 2 * * fri'], time, () => undefined);
    assert.equal(time.scheduled, 2, 'one timer per cron');
    await time.advance(4 * 60_000 + 59_999);
    await settle(() => time.scheduled === 2);
    assert.equal(seen.length, 0, 'nothing before 00:05');
    await time.advance(1);
    await settle(() => seen.length === 1 && time.scheduled === 2);
    assert.deepEqual(seen[0], { cron: '*/5 * * * *', at: '2026-01-01T00:05:00.000Z', keys: ['cron', 'noRetry', 'scheduledTime'], envGiven: true });
    await time.advance(5 * 60_000);
    await settle(() => seen.length === 2 && time.scheduled === 2);
    assert.equal(seen[1]!.at, '2026-01-01T00:10:00.000Z');
    // A jump to Friday 02:30 (a sleeping laptop): the weekly cron runs, and the five-minute one
    // runs once for its missed 00:15 slot, then re-arms from now: missed slots are not replayed.
    await time.jump(Date.UTC(2026, 0, 2, 2, 30) - time.now());
    await settle(() => seen.some((s) => s.cron === '30 2 * * fri'));
    await settle(() => time.scheduled === 2);
    assert.deepEqual(
      seen.filter((s) => s.cron === '30 2 * * fri').map((s) => s.at),
      ['2026-01-02T02:30:00.000Z'],
    );
    assert.deepEqual(
      seen.filter((s) => s.cron === '*/5 * * * *').map((s) => s.at),
      ['2026-01-01T00:05:00.000Z', '2026-01-01T00:10:00.000Z', '2026-01-01T00:15:00.000Z'],
    );
    await time.advance(5 * 60_000);
    await settle(() => seen.length === 5);
    assert.equal(seen[4]!.at, '2026-01-02T02:35:00.000Z');
    await bindings.stop();
    assert.equal(time.scheduled, 0, 'stop clears the timers');
  });

  it('keeps a cron weeks away armed across the timer cap and fires it once, on time', async () => {
    const time = manualTimers();
    const { bindings, seen } = await bindingsWith(['0 0 1 * *'], time, () => undefined);
    // 2026-01-01T00:00 itself is not "after now": the next run is February 1st, 31 days away.
    await time.advance(2 ** 31 - 1);
    await settle(() => time.scheduled === 1);
    assert.equal(seen.length, 0, 'the cap passed: re-armed, not fired');
    await time.advance(Date.UTC(2026, 1, 1) - time.now() - 1);
    await settle(() => time.scheduled === 1);
    assert.equal(seen.length, 0);
    await time.advance(1);
    await settle(() => seen.length === 1 && time.scheduled === 1);
    assert.equal(seen[0]!.at, '2026-02-01T00:00:00.000Z');
    await bindings.stop();
  });

  it('a scheduled() that throws is logged and the cron still runs next time', async () => {
    const time = manualTimers();
    let calls = 0;
    const errors: string[] = [];
    const logger = { ...nullLogger, error: (line: string | Error) => void errors.push(String(line)) };
    const { bindings, seen } = await bindingsWith(
      ['* * * * *'],
      time,
      () => {
        calls++;
        if (calls === 1) throw new Error('first run fails');
      },
      logger,
    );
    await time.advance(60_000);
    await settle(() => seen.length === 1 && time.scheduled === 1);
    await time.advance(60_000);
    await settle(() => seen.length === 2);
    assert.deepEqual(
      seen.map((s) => s.at),
      ['2026-01-01T00:01:00.000Z', '2026-01-01T00:02:00.000Z'],
    );
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /^\[cron\] scheduled\(\) for "\* \* \* \* \*" threw: Error: first run fails/);
    await bindings.stop();
  });
});
