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
  /**
   * Awake instances, least recently used first (a Map keeps insertion order; `used` moves one to
   * the end), each with the bytes it held when it last reported.
   */
  private readonly awake = new Map<Sleeper, number>();
  /** The sum of what the awake instances last reported: kept as they report, never summed again. */
  private total = 0;
  private check: TimerHandle | undefined;
  private slept = 0;

  constructor(
    /** The budget, in bytes. */
    readonly budgetBytes: number,
    private readonly timers: Timers,
  ) {}

  /** An instance woke or ran an event: it becomes the most recently used. */
  used(instance: Sleeper): void {
    const bytes = this.awake.get(instance);
    this.awake.delete(instance);
    this.awake.set(instance, bytes ?? this.report(instance, 0));
    if (bytes === undefined) this.checkIfOver();
  }

  /**
   * An instance has nothing left to do: what it holds is measured again (its writes may have grown
   * it), and if it could not be put to sleep at the last check, it may be now. Its place stays.
   */
  idle(instance: Sleeper): void {
    const bytes = this.awake.get(instance);
    if (bytes === undefined) return;
    this.awake.set(instance, this.report(instance, bytes));
    this.checkIfOver();
  }

  /** An instance is asleep (evicted, reset, shut down): the budget no longer counts it. */
  asleep(instance: Sleeper): void {
    const bytes = this.awake.get(instance);
    if (bytes === undefined) return;
    this.total -= bytes;
    this.awake.delete(instance);
  }

  /** What `instance` holds now, with the total moved from what it held (`before`). */
  private report(instance: Sleeper, before: number): number {
    const bytes = instance.memoryBytes();
    this.total += bytes - before;
    return bytes;
  }

  /** Checked once per turn of events, not per event, and only over budget: a burst of wakes costs one pass. */
  private checkIfOver(): void {
    if (this.total > this.budgetBytes) this.check ??= this.timers.after(0, () => this.enforce(), { unref: true });
  }

  /** Awake instances' estimated memory, in bytes, as they last reported it. */
  get awakeBytes(): number {
    return this.total;
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
    // Deleting the entry being visited is safe in a Map's iteration.
    for (const instance of this.awake.keys()) {
      if (this.total <= this.budgetBytes) return;
      if (!instance.canSleep()) continue;
      this.slept++;
      this.asleep(instance);
      instance.sleep();
    }
  }
}

/** `--memory-budget`'s MiB in bytes; 0 turns the budget off. */
export function budgetBytesOf(mib: number): number {
  return Math.round(mib * 1024 * 1024);
}
