/**
 * The quiet spell after which an idle instance is evicted (`limits.idleMs`, docs/runtime.md,
 * "Durability"). Each event moves the spell's end rather than cancelling a timer and setting it
 * again, so an instance busy with requests costs no timer per request: the one timer, once due,
 * waits again for what is left of the spell, or calls `onIdle` when none is.
 */
import type { TimerHandle, Timers } from '../../core/timers';

export class IdleTimer {
  /** When the spell ends (ms since epoch), 0 while something keeps the instance awake. */
  private endsAt = 0;
  private timer: TimerHandle | undefined;
  private readonly due = (): void => this.check();

  constructor(
    private readonly timers: Timers,
    private readonly onIdle: () => void,
  ) {}

  /** Something runs on the instance: no spell until the next `start`. */
  hold(): void {
    this.endsAt = 0;
  }

  /** Starts a spell of `ms`; an endless one (Infinity) never ends: there is nothing to wait for. */
  start(ms: number): void {
    this.endsAt = 0;
    if (ms === Number.POSITIVE_INFINITY) return;
    this.endsAt = this.timers.now() + ms;
    this.timer ??= this.timers.after(ms, this.due, { unref: true });
  }

  /** Stops the spell and its timer (the instance is evicted or shut down). */
  stop(): void {
    this.endsAt = 0;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The timer is due: idle, unless the instance was busy since (it waits again for the rest of its spell). */
  private check(): void {
    this.timer = undefined;
    if (this.endsAt === 0) return;
    const left = this.endsAt - this.timers.now();
    if (left > 0) this.timer = this.timers.after(left, this.due, { unref: true });
    else this.onIdle();
  }
}
