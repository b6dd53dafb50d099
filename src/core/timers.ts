/**
 * The one timer contract: a clock plus cancellable timers, injected into everything that waits
 * (alarms, retries, workflow sleeps, queue batching, crons, reconnect delays, stall watchdogs) so
 * the serve process runs them on real time and tests on a manual clock (time advances when the
 * test says so, nothing sleeps).
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

/** Resolves after `ms` on the given timers. */
export function delay(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => timers.after(ms, resolve));
}

/**
 * `promise`'s value, or undefined once `ms` have passed on a real timer: a shutdown's own deadline,
 * which must hold whatever clock the code it waits for runs on.
 */
export async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
