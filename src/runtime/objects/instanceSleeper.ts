/**
 * One instance as the memory budget sees it (`Sleeper`, memoryBudget.ts; docs/runtime.md, "Memory
 * budget"): what it holds while awake, whether it may be put to sleep now, and putting it to sleep
 * (an eviction). The host tells it when the instance is used, idle and asleep; it passes each on
 * to the budget, which keys what it keeps by this object for the host's whole life.
 */
import type { MemoryBudget, Sleeper } from '../memoryBudget';
import type { LiveInstance } from './liveInstance';

/**
 * What an awake instance holds beside its database's file and page cache, for the memory budget:
 * SQLite's connection (schema, compiled statements, lookaside: 150–180 KiB of wasm heap) and about
 * 140 KiB of process heap (docs/performance.md, "Memory", "Where it goes").
 */
export const INSTANCE_OVERHEAD_BYTES = 320 * 1024;

/** What the budget's questions read of the host, asked without waiting. */
export interface SleeperHost {
  /** Its wake is held (woken or waking): not evicted, reset or shut down since. */
  isAwake(): boolean;
  /** Shut down: it takes no more work. */
  isStopped(): boolean;
  /** An event runs, or background work (`waitUntil`, a hibernation event): both end by themselves. */
  isWorking(): boolean;
  /** What does not end by itself keeps it awake: a WebSocket it holds open, a job or an alarm armed. */
  isHolding(): boolean;
  /** Closes the database (with a snapshot or not) and forgets the object; the next event wakes it. */
  evict(options: { snapshot: boolean }): Promise<void>;
}

export class InstanceSleeper implements Sleeper {
  /** The live object once an event ran on it (the budget asks without waiting for the wake). */
  private awake: LiveInstance | undefined;

  constructor(
    private readonly budget: MemoryBudget | undefined,
    private readonly host: SleeperHost,
  ) {}

  /** An event runs on `live`: it becomes the most recently used. */
  used(live: LiveInstance): void {
    this.awake = live;
    this.budget?.used(this);
  }

  /** The instance has nothing left to do: it may be put to sleep now. */
  idle(): void {
    this.budget?.idle(this);
  }

  /** Evicted, reset or shut down: the budget no longer counts it. */
  asleep(): void {
    this.awake = undefined;
    this.budget?.asleep(this);
  }

  /** What the instance holds in memory: its database, and the rest (INSTANCE_OVERHEAD_BYTES). */
  memoryBytes(): number {
    return this.awake && this.host.isAwake() ? this.awake.db.memoryBytes() + INSTANCE_OVERHEAD_BYTES : 0;
  }

  /**
   * Whether the budget may put the instance to sleep now: awake, with nothing running, queued at
   * its input gate or in a critical section, nothing in the background (waitUntil, a hibernation
   * event), no write waiting to be durable (so no output held), no WebSocket it holds open (an
   * Agent's connections, an accepted socket), no job or alarm armed (nothing would wake it for them).
   * Hibernatable WebSockets do not keep it awake: they stay open while it sleeps, as on hibernation.
   */
  canSleep(): boolean {
    const live = this.awake;
    if (!live || !this.host.isAwake() || this.host.isStopped() || this.host.isWorking() || this.host.isHolding()) return false;
    return live.input.quiet && live.durable;
  }

  /** When it may not sleep: whether nothing but events and background work keeps it awake (they end). */
  settling(): boolean {
    return !this.host.isHolding();
  }

  /**
   * Puts the instance to sleep: as an idle eviction, with a snapshot only when it makes the next
   * wake cheaper (an instance put to sleep under load wakes again soon).
   */
  sleep(): void {
    void this.host.evict({ snapshot: this.awake?.db.snapshotPaysOff ?? true });
  }
}
