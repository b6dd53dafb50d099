/**
 * What runs on one instance now: its events (requests, RPC calls, alarms, jobs, WebSocket
 * messages: each counted from before its wake to after its output gate) and its background work
 * (`waitUntil`, hibernation events, the alarm's and the jobs' runs). An instance with either is
 * never evicted, put to sleep or counted quiet; a shutdown waits for both, up to its drain time.
 */
export class InstanceActivity {
  private running = 0;
  private readonly background = new Set<Promise<unknown>>();
  /** Waiting for the instance to have nothing to do now (the host's whenQuiet). */
  private quietWaiters: (() => void)[] = [];
  private onDrained: (() => void) | undefined;

  constructor(
    /** Background work failed: it is logged, never thrown (nobody awaits it). */
    private readonly onBackgroundError: (error: unknown) => void,
    /** Background work settled: the instance may be idle now. */
    private readonly onBackgroundSettled: () => void,
  ) {}

  /** Events running now. */
  get events(): number {
    return this.running;
  }

  /** Background tasks still running. */
  get backgroundCount(): number {
    return this.background.size;
  }

  /** No event running and no background work. */
  get settled(): boolean {
    return this.running === 0 && this.background.size === 0;
  }

  /** An event starts (before the instance wakes for it). */
  begin(): void {
    this.running++;
  }

  /** An event ended (after its output gate). */
  end(): void {
    this.running--;
    if (this.running === 0) this.onDrained?.();
  }

  /** Work that goes on after its event (`waitUntil`); a failure is logged. */
  track(promise: Promise<unknown>): void {
    const tracked = promise.catch(this.onBackgroundError);
    this.background.add(tracked);
    void tracked.finally(() => {
      this.background.delete(tracked);
      this.onBackgroundSettled();
    });
  }

  /** Resolves the next time no event runs (a shutdown's drain). */
  whenDrained(): Promise<void> {
    return new Promise<void>((resolve) => (this.onDrained = resolve));
  }

  /** Resolves once the background work of now has settled, each task whichever way. */
  backgroundSettled(): Promise<unknown> {
    return Promise.allSettled([...this.background]);
  }

  /** Resolves at the next `quiet()`, or at once when the instance is `quietNow`. */
  whenQuiet(quietNow: boolean): Promise<void> {
    if (quietNow) return Promise.resolve();
    return new Promise((resolve) => this.quietWaiters.push(resolve));
  }

  /** Someone waits for the instance to be quiet. */
  get awaitingQuiet(): boolean {
    return this.quietWaiters.length > 0;
  }

  /** The instance is quiet: everyone waiting for it goes on. */
  quiet(): void {
    for (const resolve of this.quietWaiters.splice(0)) resolve();
  }
}
