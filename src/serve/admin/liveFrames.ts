/**
 * The frames of one live-feed client (docs/admin-api.md, "Live feed"). A client that asked for
 * batches gets the first message of a quiet moment on the next timer tick, with whatever else
 * came by then; while messages keep coming, at most one frame each LIVE_BATCH_MS.
 * At 200 webhooks a second (three messages each) that is 20 frames a second instead of 600: the
 * frame, not the message, is what a client's socket, parser and event loop pay for
 * (docs/performance.md, "The explorer in the extension host").
 */
import { formatLiveFrame, LIVE_BATCH_MS, type LiveMessage } from '../../core/contract/live';
import { realTimers, type TimerHandle, type Timers } from '../../core/timers';

export class LiveFrames {
  private queue: LiveMessage[] = [];
  private lastSent = -Infinity;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly write: (frame: string) => void,
    private readonly batched: boolean,
    private readonly timers: Timers = realTimers,
  ) {}

  push(message: LiveMessage): void {
    if (!this.batched) return this.write(formatLiveFrame([message]));
    this.queue.push(message);
    if (this.timer) return;
    this.timer = this.timers.after(this.lastSent + LIVE_BATCH_MS - this.timers.now(), () => this.flush());
  }

  private flush(): void {
    this.timer = undefined;
    const messages = this.queue;
    this.queue = [];
    if (messages.length === 0) return;
    this.lastSent = this.timers.now();
    this.write(formatLiveFrame(messages));
  }

  /** Drops what is queued: the client is gone. */
  dispose(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.queue = [];
  }
}
