// The memory budget's choice (src/core/runtime/memoryBudget.ts): over budget, idle instances are
// put to sleep least recently used first until the rest fit; one that may not sleep is passed over.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBudget, type Sleeper } from '../../../../src/core/runtime/memoryBudget';
import { ManualTimers } from '../../helpers/manualTimers';

const MiB = 1024 * 1024;

class FakeInstance implements Sleeper {
  asleep = false;
  busy = false;

  constructor(
    readonly name: string,
    private readonly budget: MemoryBudget,
    private readonly bytes = MiB,
  ) {}

  memoryBytes(): number {
    return this.asleep ? 0 : this.bytes;
  }

  canSleep(): boolean {
    return !this.busy;
  }

  sleep(): void {
    this.asleep = true;
    this.budget.asleep(this);
  }
}

function setup(budgetMiB: number, names: string[]): { timers: ManualTimers; budget: MemoryBudget; instances: FakeInstance[] } {
  const timers = new ManualTimers();
  const budget = new MemoryBudget(budgetMiB * MiB, timers);
  return { timers, budget, instances: names.map((name) => new FakeInstance(name, budget)) };
}

const asleep = (instances: FakeInstance[]): string[] => instances.filter((i) => i.asleep).map((i) => i.name);

describe('memory budget', () => {
  it('puts the least recently used instances to sleep until the awake ones fit', async () => {
    const { timers, budget, instances } = setup(2, ['a', 'b', 'c', 'd']);
    const [a, b, c, d] = instances;
    for (const instance of [a!, b!, c!, d!]) budget.used(instance);
    // a is used again: b and c are now the least recently used.
    budget.used(a!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['b', 'c']);
    assert.equal(budget.awakeBytes, 2 * MiB);
    assert.equal(budget.sleptCount, 2);
  });

  it('checks once the events of this turn are done, not at each use', async () => {
    const { timers, budget, instances } = setup(1, ['a', 'b', 'c']);
    for (const instance of instances) budget.used(instance);
    assert.deepEqual(asleep(instances), [], 'nothing is put to sleep inside the event that woke an instance');
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['a', 'b']);
  });

  it('passes over an instance that may not sleep and takes the next least recently used', async () => {
    const { timers, budget, instances } = setup(2, ['a', 'b', 'c', 'd']);
    for (const instance of instances) budget.used(instance);
    instances[0]!.busy = true;
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['b', 'c']);
  });

  it('stays over budget rather than put to sleep an instance that may not sleep', async () => {
    const { timers, budget, instances } = setup(1, ['a', 'b']);
    for (const instance of instances) {
      instance.busy = true;
      budget.used(instance);
    }
    await timers.advance(0);
    assert.deepEqual(asleep(instances), []);
    assert.equal(budget.awakeBytes, 2 * MiB);
    // Once one is idle, it is put to sleep.
    instances[0]!.busy = false;
    budget.idle(instances[0]!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['a']);
  });

  it('no longer counts an instance asleep by other means (idle eviction)', async () => {
    const { timers, budget, instances } = setup(2, ['a', 'b', 'c']);
    budget.used(instances[0]!);
    budget.used(instances[1]!);
    instances[0]!.sleep();
    budget.used(instances[2]!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['a']);
    assert.equal(budget.awakeCount, 2);
  });
});
