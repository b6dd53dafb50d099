/**
 * One Durable Object's alarm, scheduled as workerd's AlarmScheduler does: one alarm at a time,
 * `alarm({ retryCount, isRetry })` when it is due (at once when set in the past), a throw retried
 * after 2 s, 4 s, 8 s … up to 6 retries, then dropped; an alarm set while the handler runs is
 * queued and runs next (no retry of the current one); `getAlarm()` inside the handler is null
 * unless one is queued. The stored row (`_cf_ALARM` in the instance's database) is the truth: it
 * is deleted only once a run succeeds, so an alarm survives a crash and runs again on restart.
 */
import type { TimerHandle, Timers } from '../../core/timers';

/** workerd's constants (src/workerd/server/alarm-scheduler.h). */
export const ALARM_RETRY_START_MS = 2_000;
export const ALARM_RETRY_MAX_TRIES = 6;
const ALARM_RETRY_BACKOFF_MAX = 9;

export interface AlarmInvocationInfo {
  readonly retryCount: number;
  readonly isRetry: boolean;
}

export interface AlarmTarget {
  /** The alarm time stored in the instance now (null when none); reads wake the instance. */
  stored(): Promise<number | null>;
  /** Wakes the instance, runs its `alarm(info)` and makes its writes durable. */
  run(info: AlarmInvocationInfo): Promise<void>;
  /** Deletes the stored row (when it still holds `time`) durably. */
  clear(time: number): Promise<void>;
  onError(error: unknown, info: AlarmInvocationInfo, willRetry: boolean): void;
  /** Background work the host waits for before it evicts or shuts down. */
  track(promise: Promise<unknown>): void;
}

export class AlarmScheduler {
  private timer: TimerHandle | undefined;
  private scheduled: number | null = null;
  private running = false;
  /** Set (or cleared, null) while the handler runs; runs next. */
  private queued: number | null | undefined;
  private countedRetry = 0;
  private backoff = 0;
  private stopped = false;

  constructor(
    private readonly timers: Timers,
    private readonly target: AlarmTarget,
  ) {}

  /** A pending timer keeps the instance awake until it fires (an alarm due soon). */
  get armed(): boolean {
    return this.timer !== undefined || this.running;
  }

  /** What `getAlarm()` answers: while the handler runs, only the queued alarm. */
  view(stored: number | null): number | null {
    return this.running ? (this.queued ?? null) : stored;
  }

  /** `setAlarm` / `deleteAlarm` (null) happened in the instance. */
  changed(time: number | null): void {
    if (this.running) {
      this.queued = time;
      return;
    }
    this.schedule(time);
  }

  private schedule(time: number | null, delay?: number): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.scheduled = time;
    if (time === null || this.stopped) return;
    if (delay === undefined) {
      this.countedRetry = 0;
      this.backoff = 0;
    }
    const wait = delay ?? time - this.timers.now();
    this.timer = this.timers.after(Math.max(0, wait), () => {
      this.timer = undefined;
      this.target.track(this.fire(time));
    });
  }

  private async fire(time: number): Promise<void> {
    // A row changed behind the timer's back (another wake, a delete) decides.
    const stored = await this.target.stored();
    if (stored !== time || this.stopped) return;
    const info = { retryCount: this.countedRetry, isRetry: this.countedRetry > 0 };
    this.running = true;
    this.queued = undefined;
    let failure: unknown;
    let failed = false;
    try {
      await this.target.run(info);
    } catch (error) {
      failed = true;
      failure = error;
    } finally {
      this.running = false;
    }
    const queued = this.queued;
    this.queued = undefined;
    if (queued !== undefined) {
      if (failed) this.target.onError(failure, info, false);
      this.schedule(queued);
      return;
    }
    if (!failed) {
      await this.target.clear(time);
      this.scheduled = null;
      return;
    }
    const willRetry = this.countedRetry < ALARM_RETRY_MAX_TRIES;
    this.target.onError(failure, info, willRetry);
    if (!willRetry) {
      await this.target.clear(time);
      this.scheduled = null;
      return;
    }
    this.countedRetry++;
    const delay = ALARM_RETRY_START_MS * 2 ** Math.min(ALARM_RETRY_BACKOFF_MAX, this.backoff);
    this.backoff++;
    this.schedule(time, delay);
  }

  /** Stops the timer (eviction keeps the row: the next wake arms it again). */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The host is shutting down: nothing fires any more. */
  close(): void {
    this.stopped = true;
    this.stop();
  }

  get scheduledTime(): number | null {
    return this.scheduled;
  }
}
