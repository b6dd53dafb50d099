/**
 * The instances' memory budget (`serve --memory-budget <MiB>`, docs/runtime.md, "Memory budget"):
 * when the awake instances hold more than the budget, idle ones are put to sleep, the least
 * recently used first, as workerd evicts idle objects when its isolate needs the memory. An
 * instance woken while over budget is let in only if its last use before it woke came after the
 * last use of the least recently used one it would push out (the second of two wakes close
 * together lets it in, as in LRU-2); otherwise it goes back to sleep once idle. So traffic that sweeps over
 * more instances than fit keeps those that fit awake, where plain least-recently-used would wake
 * every one of them at every use. Only an instance that says it may sleep is put to sleep (nothing
 * running or waiting on it, nothing unflushed: objects/instanceSleeper.ts decides); the next request wakes it
 * by the usual path. Over budget with nothing idle, instances stay awake: a request is never
 * refused for memory.
 */
import type { Timers, TimerHandle } from '../core/timers';

/** What the budget sees of an awake instance. */
export interface Sleeper {
  /** What the instance holds in memory now, in bytes (an estimate: objects/instanceSleeper.ts). */
  memoryBytes(): number;
  /** Whether it may be put to sleep now without failing or delaying anything. */
  canSleep(): boolean;
  /** Puts it to sleep; it calls `asleep` itself once it is. */
  sleep(): void;
  /**
   * When it may not sleep: whether what keeps it awake ends by itself (an event running, its output
   * held until durable, background work), after which it reports `idle`; not so a WebSocket it holds
   * open, a job or an alarm armed.
   */
  settling(): boolean;
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
  /**
   * When each instance was last used, and last used before it last woke (a count of uses, asleep
   * or awake): kept on the instance's host, which outlives its sleeps, so dropped with it.
   */
  private readonly lastUse = new WeakMap<Sleeper, number>();
  private readonly previousUse = new WeakMap<Sleeper, number>();
  private clock = 0;
  /**
   * Instances woken while the awake ones were over budget, not yet admitted: one stays awake only
   * if its last use before it woke came after the last use of the least recently used instance it
   * would push out (see enforce).
   */
  private readonly probation = new Set<Sleeper>();

  constructor(
    /** The budget, in bytes. */
    readonly budgetBytes: number,
    private readonly timers: Timers,
  ) {}

  /** An instance woke or ran an event: it becomes the most recently used. */
  used(instance: Sleeper): void {
    const bytes = this.awake.get(instance);
    // One request may be several events (the SDK's routing calls the object before its fetch): what
    // counts for admission is the last use before this wake.
    if (bytes === undefined) this.previousUse.set(instance, this.lastUse.get(instance) ?? 0);
    this.lastUse.set(instance, ++this.clock);
    this.awake.delete(instance);
    this.awake.set(instance, bytes ?? this.report(instance, 0));
    if (bytes !== undefined) return;
    if (this.total > this.budgetBytes) this.probation.add(instance);
    this.checkIfOver();
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
    this.probation.delete(instance);
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

  /**
   * Puts idle instances to sleep until the awake ones fit the budget: newcomers not let in first
   * (each once idle), then the least recently used.
   */
  enforce(): void {
    this.check?.cancel();
    this.check = undefined;
    if (this.total <= this.budgetBytes) return this.probation.clear();
    // Newcomers first: one whose last use before it woke is older than the last use of the least
    // recently used instance it would push out (or that has none) goes back to sleep once idle, its
    // bytes counted as leaving until then. A sweep over more instances than fit then keeps those
    // that fit, where plain least-recently-used would push out each one just before its next use.
    let leaving = 0;
    for (const newcomer of this.probation) {
      if (this.total - leaving <= this.budgetBytes) break;
      const oldest = this.leastRecentlyUsed();
      if (oldest && (this.previousUse.get(newcomer) ?? 0) > (this.lastUse.get(oldest) ?? 0)) {
        this.probation.delete(newcomer);
        this.putToSleep(oldest);
      } else if (newcomer.canSleep()) this.putToSleep(newcomer);
      else if (newcomer.settling()) leaving += this.awake.get(newcomer) ?? 0;
      // Kept awake by what does not end by itself: it stays, counted as any other.
      else this.probation.delete(newcomer);
    }
    // Deleting the entry being visited is safe in a Map's iteration.
    for (const instance of this.awake.keys()) {
      if (this.total - leaving <= this.budgetBytes) return;
      if (this.probation.has(instance) || !instance.canSleep()) continue;
      this.putToSleep(instance);
    }
  }

  /** The least recently used admitted instance that may sleep now. */
  private leastRecentlyUsed(): Sleeper | undefined {
    for (const instance of this.awake.keys()) if (!this.probation.has(instance) && instance.canSleep()) return instance;
    return undefined;
  }

  private putToSleep(instance: Sleeper): void {
    this.slept++;
    this.asleep(instance);
    instance.sleep();
  }
}

/** `--memory-budget`'s MiB in bytes; 0 turns the budget off. */
export function budgetBytesOf(mib: number): number {
  return Math.round(mib * 1024 * 1024);
}
