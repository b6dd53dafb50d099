/**
 * Timers handed to components that wait (reconnect delays, stall watchdogs), so tests can run
 * them on short or manual clocks instead of sleeping.
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Resolves after `ms` on the given timers. */
export function delay(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => timers.setTimeout(resolve, ms));
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
