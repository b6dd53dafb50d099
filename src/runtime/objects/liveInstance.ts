/**
 * One wake of an instance: its open database, the object the class built on it, its input gate
 * (what runs code on it gets in one at a time, inputGate.ts) and output gate (what follows a write
 * waits until it is durable, outputGate.ts). An event runs here once its host has woken it. A
 * reset (`blockConcurrencyWhile` threw or outran 30 s, a hibernation event outran its timeout)
 * fails every event still running on this object and every event let in after; the host then
 * drops it without committing, and the next event gets a new object (docs/runtime.md,
 * "Concurrency").
 */
import type { Timers } from '../../core/timers';
import type { DurableDatabase } from '../storage/durableDatabase';
import type { DurableObjectState } from './durableObject';
import { hooksOf } from './hosted';
import { InputGate } from './inputGate';
import { OutputGate } from './outputGate';

/** workerd's limit on a `blockConcurrencyWhile` callback (io-context.h). */
export const BLOCK_CONCURRENCY_TIMEOUT_MS = 30_000;
export const BLOCK_CONCURRENCY_TIMEOUT_MESSAGE =
  'A call to blockConcurrencyWhile() in a Durable Object waited for too long. The call was canceled and the Durable Object was reset.';

/** What the runtime calls on an instance: `fetch`, `alarm`, and any method through RPC. */
export type HostedObject = Record<string, unknown> & { fetch?: (request: Request) => Promise<Response>; alarm?: (info: unknown) => Promise<void> };

export class LiveInstance {
  readonly gate: OutputGate;
  /** Lets what runs code on the object in one at a time; a reset object's gate goes with it. */
  readonly input = new InputGate();
  /**
   * The object and its `ctx`, set by the host once built: the class's constructor may call
   * `blockConcurrencyWhile`, so this wake is complete but for them before it runs.
   */
  object!: HostedObject;
  ctx!: DurableObjectState;
  /** Rejects when the object is reset: every event still running on it fails with the reason. */
  readonly broken: Promise<never>;
  private rejectBroken!: (error: unknown) => void;
  /**
   * The events running on it, each by its reject: a reset rejects them. Not a race against
   * `broken`, which settles only on a reset: every race would leave a reaction on it holding the
   * event's result, and a healthy object would keep every response it ever gave until evicted.
   */
  private readonly running = new Set<(error: unknown) => void>();
  private wasReset = false;

  constructor(
    readonly db: DurableDatabase,
    /** Lets go of the database's heap, once it is closed. */
    readonly release: (() => void) | undefined,
    private readonly timers: Timers,
    /** A commit for the output gate failed (the events waiting on it fail with it too). */
    onCommitError: (error: unknown) => void,
    /** The object was reset, once: the host drops it. */
    private readonly onReset: (live: LiveInstance, error: unknown) => void,
  ) {
    this.broken = new Promise<never>((_resolve, reject) => (this.rejectBroken = reject));
    this.broken.catch(() => undefined);
    this.gate = new OutputGate(db, onCommitError);
  }

  /** The object was reset: no event runs on it any more. */
  get isReset(): boolean {
    return this.wasReset;
  }

  /** `work`'s outcome, or the reset's error as soon as the object is reset while `work` runs. */
  settle<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.running.add(reject);
      void work.then(resolve, reject).finally(() => this.running.delete(reject));
    });
  }

  /**
   * Runs `fn` as an event through the input gate, after the hooks' `start` (an Agent's `onStart`,
   * once per wake; `props` is what its router sent), then holds its result until what it wrote is
   * durable (the output gate).
   */
  async run<T>(fn: (live: LiveInstance) => Promise<T>, props?: () => unknown): Promise<T> {
    await this.input.enter();
    if (this.wasReset) return this.broken;
    return this.input.run(async () => {
      // A plain Durable Object takes no extra turn here: its writes commit with the same timing as on workerd.
      const hooks = hooksOf(this.object);
      if (hooks) await hooks.start(props?.());
      const before = this.db.writeCount;
      const result = await fn(this);
      if (this.wasReset) return this.broken;
      // The output gate: hold the result until what it wrote is durable. Code that wrote nothing
      // (a read, getAgentByName's start) must not wait for other requests' commits.
      if (this.db.writeCount > before || this.db.writeCount > this.db.durableWriteCount) await this.db.commit();
      return result;
    });
  }

  /** Runs `fn` as a critical section (`transaction()`): every other event waits until it settles. */
  critical<T>(fn: () => Promise<T>): Promise<T> {
    const section = this.input.openSection();
    const run = section.inside(fn);
    run.then(section.end, section.end);
    return run;
  }

  /**
   * `blockConcurrencyWhile` as workerd: other events wait; a throw, or a callback still running
   * after 30 s, resets the object. The caller never resumes then: the event that called it, and
   * those waiting, fail with the error, and the next event gets a new object.
   */
  blockWhile<T>(fn: () => Promise<T> | T): Promise<T> {
    let timer: { cancel(): void } | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = this.timers.after(BLOCK_CONCURRENCY_TIMEOUT_MS, () => reject(new Error(BLOCK_CONCURRENCY_TIMEOUT_MESSAGE)), { unref: true });
    });
    const section = this.input.openSection();
    const guarded = Promise.race([Promise.resolve().then(() => section.inside(fn)), timeout]).finally(() => {
      timer?.cancel();
      section.end();
    });
    return guarded.catch((error: unknown) => {
      this.reset(error);
      return new Promise<never>(() => undefined);
    });
  }

  /** Fails every event on the object with `error`, once; its pending writes are never committed. */
  reset(error: unknown): void {
    if (this.wasReset) return;
    this.wasReset = true;
    this.rejectBroken(error);
    for (const reject of this.running) reject(error);
    this.running.clear();
    this.onReset(this, error);
  }

  /** No write waits to be durable (so no output is held). */
  get durable(): boolean {
    return this.db.writeCount === this.db.durableWriteCount;
  }
}
