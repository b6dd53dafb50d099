/**
 * The instances' memory budget (`serve --memory-budget <MiB>`, docs/runtime.md, "Memory budget"):
 * when the awake instances hold more than the budget, idle ones are put to sleep, the least
 * recently used first, as workerd evicts idle objects when its isolate needs the memory. Only an
 * instance that says it may sleep is put to sleep (nothing running or waiting on it, nothing
 * unflushed: instanceHost.ts decides); the next request wakes it by the usual path. Over budget
 * with nothing idle, instances stay awake: a request is never refused for memory.
 */
import type { Timers, TimerHandle } from '../timers';

/** What the budget sees of an awake instance. */
export interface Sleeper {
  /** What the instance holds in memory now, in bytes (an estimate: instanceHost.ts). */
  memoryBytes(): number;
  /** Whether it may be put to sleep now without failing or delaying anything. */
  canSleep(): boolean;
  /** Puts it to sleep; it calls `asleep` itself once it is. */
  sleep(): void;
}

export class MemoryBudget {
  /** Awake instances, least recently used first (a Map keeps insertion order; `used` moves one to the end). */
  private readonly awake = new Map<Sleeper, true>();
  private check: TimerHandle | undefined;
  private slept = 0;

  constructor(
    /** The budget, in bytes. */
    readonly budgetBytes: number,
    private readonly timers: Timers,
  ) {}

  /** An instance woke or ran an event: it becomes the most recently used, and the budget is checked soon. */
  used(instance: Sleeper): void {
    this.awake.delete(instance);
    this.awake.set(instance, true);
    this.checkSoon();
  }

  /**
   * An instance has nothing left to do: if it could not be put to sleep at the last check, it
   * may be now. Its place in the order stays.
   */
  idle(instance: Sleeper): void {
    if (this.awake.has(instance)) this.checkSoon();
  }

  /** Checked once per turn of events, not per event: a burst of wakes costs one pass. */
  private checkSoon(): void {
    this.check ??= this.timers.after(0, () => this.enforce(), { unref: true });
  }

  /** An instance is asleep (evicted, reset, shut down): the budget no longer counts it. */
  asleep(instance: Sleeper): void {
    this.awake.delete(instance);
  }

  /** Awake instances' estimated memory, in bytes. */
  get awakeBytes(): number {
    let total = 0;
    for (const instance of this.awake.keys()) total += instance.memoryBytes();
    return total;
  }

  get awakeCount(): number {
    return this.awake.size;
  }

  /** Instances put to sleep for the budget so far. */
  get sleptCount(): number {
    return this.slept;
  }

  /** Puts idle instances to sleep, least recently used first, until the awake ones fit the budget. */
  enforce(): void {
    this.check?.cancel();
    this.check = undefined;
    let total = this.awakeBytes;
    if (total <= this.budgetBytes) return;
    for (const instance of [...this.awake.keys()]) {
      if (total <= this.budgetBytes) return;
      if (!instance.canSleep()) continue;
      total -= instance.memoryBytes();
      this.awake.delete(instance);
      this.slept++;
      instance.sleep();
    }
  }
}

/** `--memory-budget`'s MiB in bytes; 0 turns the budget off. */
export function budgetBytesOf(mib: number): number {
  return Math.round(mib * 1024 * 1024);
}
