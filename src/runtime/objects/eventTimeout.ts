/**
 * The hibernation event timeout (`ctx.setHibernatableWebSocketEventTimeout`): a
 * `webSocketMessage`, `webSocketClose` or `webSocketError` handler still running after it resets
 * the object, as workerd's does. The timer fires at most once and is cancelled as soon as the
 * handler settles.
 */
import type { Timers } from '../../core/timers';

/** workerd's error when a hibernatable WebSocket handler outruns its event timeout (global-scope.c++). */
export const EVENT_TIMEOUT_MESSAGE = 'Actor exceeded event execution time and was disconnected.';

/**
 * Waits for `handled`; with a `limit` (ms; null or 0: none), at most that long: then `onTimeout`
 * resets the object with the timeout's error, and the wait rejects with it.
 */
export async function withEventTimeout(timers: Timers, limit: number | null, handled: Promise<unknown>, onTimeout: (error: Error) => void): Promise<void> {
  if (!limit) return void (await handled);
  let timer: { cancel(): void } | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = timers.after(
      limit,
      () => {
        const error = new Error(EVENT_TIMEOUT_MESSAGE);
        onTimeout(error);
        reject(error);
      },
      { unref: true },
    );
  });
  try {
    await Promise.race([handled, timeout]);
  } finally {
    timer?.cancel();
  }
}
