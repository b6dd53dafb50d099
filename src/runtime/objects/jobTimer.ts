/**
 * The timer for an agent's next job (its queue and schedules, `cf_agents_jobs`: docs/runtime.md,
 * "What is emulated"), which plays the alarm's role for the SDK: the agent says when its next job
 * is due (`onJobsChanged`), and the host runs the due jobs then. An armed timer keeps the instance
 * awake; eviction stops it, and the next wake arms it again from the table.
 */
import type { TimerHandle, Timers } from '../../core/timers';

export class JobTimer {
  private timer: TimerHandle | undefined;
  /** When the armed timer fires (ms since epoch). */
  private dueAt: number | undefined;

  constructor(
    private readonly timers: Timers,
    /** The timer fired: run the jobs that are due. */
    private readonly onDue: () => void,
  ) {}

  /** Arms the timer for `time` (at once when past), or disarms it (undefined: no job). */
  arm(time: number | undefined): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.dueAt = time;
    if (time === undefined) return;
    this.timer = this.timers.after(Math.max(0, time - this.timers.now()), () => {
      this.timer = undefined;
      this.dueAt = undefined;
      this.onDue();
    });
  }

  /** A job is due later: the instance must stay awake for it. */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  /** A job is due now (its timer has yet to fire): the instance is not quiet. */
  dueNow(): boolean {
    return this.dueAt !== undefined && this.dueAt <= this.timers.now();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.dueAt = undefined;
  }
}
