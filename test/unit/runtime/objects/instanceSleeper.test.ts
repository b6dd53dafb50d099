// An instance as the memory budget sees it, on a real wake and a real budget with a manual clock:
// what it holds, when it may be put to sleep (awake, idle, quiet at its input gate, every write
// durable), when what keeps it awake ends by itself, and the budget putting it to sleep through an
// eviction with a snapshot only when one pays off.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryBudget } from '../../../../src/runtime/memoryBudget';
import { InstanceFolder } from '../../../../src/runtime/objects/instanceFolder';
import { INSTANCE_OVERHEAD_BYTES, InstanceSleeper } from '../../../../src/runtime/objects/instanceSleeper';
import { LiveInstance } from '../../../../src/runtime/objects/liveInstance';
import { ManualTimers } from '../../helpers/manualTimers';
import { testPlatform } from '../../helpers/platform';

async function sleeper(budgetBytes = 2 ** 40) {
  const timers = new ManualTimers();
  const folder = new InstanceFolder(await testPlatform({ timers }), 'one', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-sleeper-')));
  const { db, release } = await folder.open();
  const live = new LiveInstance(
    db,
    release,
    timers,
    () => undefined,
    () => undefined,
  );
  live.object = {};
  db.exec('CREATE TABLE t (v INTEGER)');
  await db.commit();
  const host = { awake: true, stopped: false, working: false, holding: false };
  const evictions: { snapshot: boolean }[] = [];
  const budget = new MemoryBudget(budgetBytes, timers);
  const instance: InstanceSleeper = new InstanceSleeper(budget, {
    isAwake: () => host.awake,
    isStopped: () => host.stopped,
    isWorking: () => host.working,
    isHolding: () => host.holding,
    evict: async (options) => {
      evictions.push(options);
      host.awake = false;
      instance.asleep();
    },
  });
  return { instance, live, host, budget, timers, evictions, close: () => folder.close(Promise.resolve(live), { snapshot: false }) };
}

describe('instance sleeper', () => {
  it('holds nothing until used, then its database and the overhead of an awake instance, and nothing asleep', async () => {
    const { instance, live, budget, close } = await sleeper();
    assert.equal(instance.memoryBytes(), 0);
    instance.used(live);
    assert.equal(instance.memoryBytes(), live.db.memoryBytes() + INSTANCE_OVERHEAD_BYTES);
    assert.equal(budget.awakeBytes, instance.memoryBytes());
    instance.asleep();
    assert.equal(instance.memoryBytes(), 0);
    assert.equal(budget.awakeBytes, 0);
    await close();
  });

  it('may sleep only awake, not stopped, idle, quiet at its input gate and with every write durable', async () => {
    const { instance, live, host, close } = await sleeper();
    assert.equal(instance.canSleep(), false, 'never used in this wake');
    instance.used(live);
    assert.equal(instance.canSleep(), true);
    for (const flag of ['stopped', 'working', 'holding'] as const) {
      host[flag] = true;
      assert.equal(instance.canSleep(), false, flag);
      host[flag] = false;
    }
    live.db.exec('INSERT INTO t (v) VALUES (1)');
    assert.equal(instance.canSleep(), false, 'a write not yet durable holds output');
    await live.db.commit();
    assert.equal(instance.canSleep(), true);
    let leave!: () => void;
    const section = live.critical(() => new Promise<void>((resolve) => (leave = resolve)));
    assert.equal(instance.canSleep(), false, 'a critical section is open');
    leave();
    await section;
    assert.equal(instance.canSleep(), true);
    host.awake = false;
    assert.equal(instance.canSleep(), false, 'evicted since');
    assert.equal(instance.memoryBytes(), 0);
    await close();
  });

  it('settles by itself unless it holds a connection, a job or an alarm', async () => {
    const { instance, host, close } = await sleeper();
    host.working = true;
    assert.equal(instance.settling(), true);
    host.holding = true;
    assert.equal(instance.settling(), false);
    await close();
  });

  it('is put to sleep by a budget it is over once idle, with a snapshot only when one pays off', async () => {
    const { instance, live, host, timers, evictions, budget, close } = await sleeper(1);
    const paysOff = live.db.snapshotPaysOff;
    host.working = true;
    instance.used(live);
    await timers.advance(0);
    assert.deepEqual(evictions, [], 'an event runs: it stays awake');
    host.working = false;
    instance.idle();
    await timers.advance(0);
    assert.deepEqual(evictions, [{ snapshot: paysOff }]);
    assert.equal(budget.awakeCount, 0);
    await close();
  });
});
