// The manual clock every test runs timers on (src/core/timers.ts's contract): timers fire when
// `advance` or `jump` passes their time, nothing sleeps.
import type { TimerHandle, Timers } from '../../../src/core/timers';

export class ManualTimers implements Timers {
  private time: number;
  private readonly pending = new Set<{ at: number; fn: () => void }>();

  /** Awaited after every timer fired: resolves once the code under test is parked again. */
  quiescent: () => Promise<void> = settle;

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now = (): number => this.time;

  after(ms: number, fn: () => void): TimerHandle {
    const timer = { at: this.time + Math.max(0, ms), fn };
    this.pending.add(timer);
    return { cancel: () => this.pending.delete(timer) };
  }

  /** Moves the clock by `ms`, firing every timer due on the way, in time order. */
  advance(ms: number): Promise<void> {
    return this.fireUntil(this.time + ms);
  }

  /**
   * Sets the clock `ms` ahead at once, as a machine waking from sleep sees it: every timer due by
   * then fires, in time order, and reads the new time (what re-arms from now skips the slots slept
   * through).
   */
  jump(ms: number): Promise<void> {
    this.time += ms;
    return this.fireUntil(this.time);
  }

  private async fireUntil(end: number): Promise<void> {
    for (;;) {
      await settle();
      await this.quiescent();
      const next = [...this.pending].filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.pending.delete(next);
      this.time = Math.max(this.time, next.at);
      next.fn();
    }
    this.time = end;
    await settle();
    await this.quiescent();
  }

  get scheduled(): number {
    return this.pending.size;
  }
}

/** Lets promise chains and file I/O started by fired timers run to their end. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}
