/**
 * Reports the event loop being blocked (user code spinning), without crashing anything: a
 * heartbeat timer that sees how late it ran, and says so as soon as the block ends. Start-up's own
 * delays (bundling, compiling sql.js) are ignored until `ready()`. It watches the real event loop,
 * so it runs on real time whatever the platform's timers are; its timer never keeps the process
 * alive.
 */
import type { Logger } from '../core/log';

/** How often the watch ticks, and how long a block must last to be reported. */
const WATCH_TICK_MS = 100;
const BLOCKED_MS = 1000;

export interface EventLoopWatch {
  /** Start-up is over: blocks from now on are reported. */
  ready(): void;
  stop(): void;
}

export function watchEventLoop(logger: Logger): EventLoopWatch {
  let armed = false;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const blocked = now - last - WATCH_TICK_MS;
    last = now;
    if (armed && blocked > BLOCKED_MS)
      logger.warn(`[agents] the event loop was blocked for ${Math.round(blocked)} ms: some agent code runs synchronously for too long`);
  }, WATCH_TICK_MS);
  timer.unref();
  return {
    ready: () => {
      armed = true;
      last = performance.now();
    },
    stop: () => clearInterval(timer),
  };
}
