/**
 * Timers the runtime schedules alarms, retries and workflow sleeps on: the real ones in the serve
 * process, a manual clock in tests (time advances when the test says so, nothing sleeps).
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Timers {
  now(): number;
  /** Runs `fn` once `ms` have passed; `unref` timers do not keep the process alive. */
  after(ms: number, fn: () => void, options?: { unref?: boolean }): TimerHandle;
}

const MAX_DELAY = 2 ** 31 - 1;

export const realTimers: Timers = {
  now: Date.now,
  after(ms, fn, options) {
    // setTimeout fires at once for delays past 2^31-1 ms: wait in legs until the time is reached.
    let timer: NodeJS.Timeout;
    const arm = (left: number): void => {
      const leg = Math.max(0, Math.min(left, MAX_DELAY));
      timer = setTimeout(() => (left > MAX_DELAY ? arm(left - MAX_DELAY) : fn()), leg);
      if (options?.unref) timer.unref();
    };
    arm(ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

/** Real timers measured against another clock (a host given only `now`). */
export function timersWithClock(now: () => number): Timers {
  return { now, after: realTimers.after };
}
