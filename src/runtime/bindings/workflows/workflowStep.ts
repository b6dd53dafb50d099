/**
 * The `step` a workflow's `run(event, step)` receives: `do` (memoized, retried with backoff,
 * timed out), `sleep`/`sleepUntil` and `waitForEvent`, with miniflare's defaults (retries 5,
 * delay 1 s, exponential; timeout 10 minutes; waitForEvent 24 hours) and messages. Every step is
 * keyed by its name and how many times that name was used before in the run, so a replay after a
 * restart finds each completed step's stored result instead of running it again.
 */
import type { TimerHandle } from '../../../core/timers';
import { toMs } from './duration';
import type { WorkflowStore } from './workflowStore';
import { NonRetryableError } from './workflowErrors';

export interface StepConfig {
  readonly retries?: { readonly limit?: number; readonly delay?: string | number; readonly backoff?: 'constant' | 'linear' | 'exponential' };
  readonly timeout?: string | number;
}

const DEFAULTS = { limit: 5, delay: 1000, backoff: 'exponential' as const, timeout: 600_000 };
const MAX_STEP_NAME_LENGTH = 256;

/** What the step needs from the run that owns it. */
export interface StepHost {
  readonly store: WorkflowStore;
  now(): number;
  /** Runs `fn` after `ms` unless cancelled. */
  timer(ms: number, fn: () => void): TimerHandle;
  /** Resolves after `ms`, or rejects when the run is aborted (pause, terminate, restart). */
  wait(ms: number): Promise<void>;
  /** Resolves when an event arrives or after `ms`; rejects when the run is aborted. */
  waitForEventOrTimeout(ms: number): Promise<void>;
  /** Throws when the run was aborted; called at every step boundary. */
  checkpoint(): void;
  /** Writes the step's result to disk before the run goes on. */
  commit(): Promise<void>;
  setWaiting(waiting: boolean): void;
}

/**
 * A step or event wait that timed out, as the workflow sees it in miniflare: the engine's
 * WorkflowTimeoutError after the RPC boundary, a plain Error whose message names it.
 */
export function timeoutError(ms: number): Error {
  return new Error(`WorkflowTimeoutError: Execution timed out after ${ms}ms`);
}

export class WorkflowStep {
  private readonly counters = new Map<string, number>();

  constructor(private readonly host: StepHost) {}

  private key(kind: string, name: string): string {
    if (typeof name !== 'string' || name.length > MAX_STEP_NAME_LENGTH)
      throw new Error(`Step name "${name}" exceeds max length (${MAX_STEP_NAME_LENGTH} chars) or invalid characters found`);
    const id = `${kind}:${name}`;
    const count = (this.counters.get(id) ?? 0) + 1;
    this.counters.set(id, count);
    return `${id}#${count}`;
  }

  async do<T>(name: string, configOrFn: StepConfig | (() => Promise<T> | T), maybeFn?: () => Promise<T> | T): Promise<T> {
    const fn = (typeof configOrFn === 'function' ? configOrFn : maybeFn)!;
    const config: StepConfig = typeof configOrFn === 'function' ? {} : configOrFn;
    const key = this.key('do', name);
    this.host.checkpoint();
    const done = this.host.store.step(key);
    if (done) {
      if (done.ok) return done.value as T;
      throw revive(done.value);
    }
    const limit = config.retries?.limit ?? DEFAULTS.limit;
    const delay = toMs(config.retries?.delay ?? DEFAULTS.delay);
    const backoff = config.retries?.backoff ?? DEFAULTS.backoff;
    const timeout = toMs(config.timeout ?? DEFAULTS.timeout);
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.withTimeout(fn, timeout);
        this.host.checkpoint();
        this.host.store.setStep(key, true, result);
        await this.host.commit();
        return result;
      } catch (error) {
        this.host.checkpoint();
        const final = error instanceof NonRetryableError || (error as Error)?.name === 'NonRetryableError' || attempt > limit;
        if (final) {
          this.host.store.setStep(key, false, { name: (error as Error)?.name ?? 'Error', message: (error as Error)?.message ?? String(error) });
          await this.host.commit();
          throw error;
        }
        const wait = backoff === 'exponential' ? delay * 2 ** (attempt - 1) : backoff === 'linear' ? delay * attempt : delay;
        await this.host.wait(wait);
      }
    }
  }

  private withTimeout<T>(fn: () => Promise<T> | T, timeout: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = this.host.timer(timeout, () => reject(timeoutError(timeout)));
      Promise.resolve()
        .then(fn)
        .then(
          (value) => {
            timer.cancel();
            resolve(value);
          },
          (error: unknown) => {
            timer.cancel();
            reject(error);
          },
        );
    });
  }

  async sleep(name: string, duration: string | number): Promise<void> {
    const ms = toMs(duration);
    const key = this.key('sleep', name);
    await this.sleepTo(key, () => this.host.now() + ms);
  }

  async sleepUntil(name: string, timestamp: Date | number): Promise<void> {
    const until = timestamp instanceof Date ? timestamp.getTime() : Number(timestamp);
    const key = this.key('sleep', name);
    await this.sleepTo(key, () => until);
  }

  /** The wake time is stored when the sleep starts, so a restart sleeps only what is left. */
  private async sleepTo(key: string, target: () => number): Promise<void> {
    this.host.checkpoint();
    const stored = this.host.store.step(key);
    let until: number;
    if (stored) until = stored.value as number;
    else {
      until = target();
      this.host.store.setStep(key, true, until);
      await this.host.commit();
    }
    const left = until - this.host.now();
    if (left > 0) {
      this.host.setWaiting(true);
      try {
        await this.host.wait(left);
      } finally {
        this.host.setWaiting(false);
      }
    }
    this.host.checkpoint();
  }

  async waitForEvent<T = unknown>(name: string, options: { type: string; timeout?: string | number }): Promise<{ payload: T; timestamp: Date; type: string }> {
    const key = this.key('waitForEvent', name);
    this.host.checkpoint();
    const done = this.host.store.step(key);
    if (done) {
      if (done.ok) return done.value as { payload: T; timestamp: Date; type: string };
      throw revive(done.value);
    }
    const startKey = `${key}:until`;
    const timeout = toMs(options.timeout ?? '24 hours');
    let until = this.host.store.step(startKey)?.value as number | undefined;
    if (until === undefined) {
      until = this.host.now() + timeout;
      this.host.store.setStep(startKey, true, until);
      await this.host.commit();
    }
    this.host.setWaiting(true);
    try {
      for (;;) {
        this.host.checkpoint();
        const event = this.host.store.takeEvent(options.type, key);
        if (event) {
          const result = { payload: event.payload as T, timestamp: event.timestamp, type: event.type };
          this.host.store.setStep(key, true, result);
          await this.host.commit();
          return result;
        }
        const left = until - this.host.now();
        if (left <= 0) {
          const error = timeoutError(timeout);
          this.host.store.setStep(key, false, { name: error.name, message: error.message });
          await this.host.commit();
          throw error;
        }
        await this.host.waitForEventOrTimeout(left);
      }
    } finally {
      this.host.setWaiting(false);
    }
  }
}

/** A stored final step error, thrown again on replay as the same name and message. */
function revive(stored: unknown): Error {
  const { name, message } = stored as { name: string; message: string };
  const error = name === 'NonRetryableError' ? new NonRetryableError(message) : new Error(message);
  if (error.name !== name) Object.defineProperty(error, 'name', { value: name });
  return error;
}
