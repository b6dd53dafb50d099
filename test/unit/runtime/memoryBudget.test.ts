// The memory budget's choice (src/runtime/memoryBudget.ts): over budget, idle instances are
// put to sleep least recently used first until the rest fit; one that may not sleep is passed over;
// an instance woken over budget stays awake only if it was used more lately than the least recently
// used one it would push out, so a sweep over more instances than fit keeps those that do.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBudget, type Sleeper } from '../../../src/runtime/memoryBudget';
import { ManualTimers } from '../helpers/manualTimers';

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

  /** Held awake by what does not end by itself (a WebSocket, an alarm), as opposed to busy. */
  held = false;

  canSleep(): boolean {
    return !this.busy && !this.held;
  }

  settling(): boolean {
    return !this.held;
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
  /** Uses each instance once, in order, as one event each: woken, then idle (the host's calls). */
  async function useInTurn(budget: MemoryBudget, timers: ManualTimers, instances: FakeInstance[]): Promise<void> {
    for (const instance of instances) {
      instance.asleep = false;
      budget.used(instance);
      budget.idle(instance);
      await timers.advance(0);
    }
  }

  it('puts the least recently used instances to sleep for one used more lately', async () => {
    const { timers, budget, instances } = setup(3, ['a', 'b', 'c', 'd']);
    const [a, b, c, d] = instances;
    await useInTurn(budget, timers, [a!, b!, c!]);
    // d's first wake: it was never used, so it goes back to sleep.
    await useInTurn(budget, timers, [d!]);
    assert.deepEqual(asleep(instances), ['d']);
    // a is used again: b is now the least recently used, and d's last use came after b's.
    await useInTurn(budget, timers, [a!]);
    d!.busy = true;
    d!.asleep = false;
    budget.used(d!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['b']);
    assert.equal(budget.awakeBytes, 3 * MiB);
    assert.equal(budget.sleptCount, 2);
  });

  it('counts the uses of one wake as one: a newcomer used twice awake is still a newcomer', async () => {
    const { timers, budget, instances } = setup(2, ['a', 'b', 'c']);
    const [a, b, c] = instances;
    await useInTurn(budget, timers, [a!, b!]);
    c!.busy = true;
    budget.used(c!);
    budget.used(c!);
    c!.busy = false;
    budget.idle(c!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['c']);
  });

  it('checks once the events of this turn are done, not at each use', async () => {
    const { timers, budget, instances } = setup(1, ['a', 'b', 'c']);
    for (const instance of instances) budget.used(instance);
    assert.deepEqual(asleep(instances), [], 'nothing is put to sleep inside the event that woke an instance');
    await timers.advance(0);
    // b and c, woken over budget and used no more than a, go back to sleep.
    assert.deepEqual(asleep(instances), ['b', 'c']);
  });

  it('keeps the instances that fit through a sweep over more than fit, where least-recently-used would keep none', async () => {
    const { timers, budget, instances } = setup(3, ['a', 'b', 'c', 'd', 'e', 'f']);
    // Three sweeps over six instances, each used once a sweep, with room for three.
    for (let sweep = 0; sweep < 3; sweep++) await useInTurn(budget, timers, instances);
    // The first three stay awake; the other three wake for each of their uses.
    assert.deepEqual(asleep(instances), ['d', 'e', 'f']);
    assert.equal(budget.sleptCount, 9);
    assert.equal(budget.awakeBytes, 3 * MiB);
  });

  it('lets in an instance used more lately than the least recently used one', async () => {
    const { timers, budget, instances } = setup(2, ['a', 'b', 'c']);
    const [a, b, c] = instances;
    await useInTurn(budget, timers, [a!, b!]);
    // c's first use: used no more than a, it goes back to sleep; its second: it stays, a goes.
    await useInTurn(budget, timers, [c!]);
    assert.deepEqual(asleep(instances), ['c']);
    await useInTurn(budget, timers, [c!]);
    assert.deepEqual(asleep(instances), ['a'], 'c was used twice lately, a once');
  });

  it('an instance busy long ago does not keep out one used twice since', async () => {
    const { timers, budget, instances } = setup(2, ['old', 'other', 'new']);
    const [old, other, newcomer] = instances;
    for (let i = 0; i < 1000; i++) budget.used(old!);
    budget.used(other!);
    // Many uses later (of other), old's many uses long ago do not count.
    for (let i = 0; i < 12_000; i++) budget.used(other!);
    budget.idle(old!);
    budget.idle(other!);
    await useInTurn(budget, timers, [newcomer!]);
    await useInTurn(budget, timers, [newcomer!]);
    assert.deepEqual(asleep(instances), ['old']);
  });

  it('puts a newcomer back to sleep only once it is idle, and no one else for it meanwhile', async () => {
    const { timers, budget, instances } = setup(2, ['a', 'b', 'c']);
    const [a, b, c] = instances;
    await useInTurn(budget, timers, [a!, b!]);
    c!.busy = true;
    budget.used(c!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), [], 'c is still running its event: nobody sleeps for it');
    c!.busy = false;
    budget.idle(c!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['c']);
  });

  it('counts a newcomer held awake by a socket or an alarm as any other, not as leaving', async () => {
    const { timers, budget, instances } = setup(2, ['a', 'b', 'c']);
    const [a, b, c] = instances;
    await useInTurn(budget, timers, [a!, b!]);
    c!.held = true;
    budget.used(c!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['a'], 'c will not leave by itself: the least recently used makes room');
  });

  it('passes over an instance that may not sleep and takes the next least recently used', async () => {
    const { timers, budget, instances } = setup(2, ['a', 'b', 'c']);
    const [a, b, c] = instances;
    await useInTurn(budget, timers, [a!, b!, c!]);
    assert.deepEqual(asleep(instances), ['c']);
    a!.busy = true;
    c!.busy = true;
    c!.asleep = false;
    budget.used(c!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['b']);
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
    // Once one is idle, it is put to sleep: a alone fits.
    instances[1]!.busy = false;
    budget.idle(instances[1]!);
    await timers.advance(0);
    assert.deepEqual(asleep(instances), ['b']);
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
