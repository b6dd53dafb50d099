/**
 * The input gate of a Durable Object (docs/runtime.md, "Concurrency"): what runs code on one
 * instance — a request, an RPC call, an alarm, a job, a WebSocket message, and the completion of
 * outside I/O its code awaits (a timer, a fetch, the request's body) — gets in one at a time, and
 * the next only once the code let in before it has yielded to the event loop, as workerd delivers
 * them. So code that reads, awaits a timer or a fetch, then writes can be overtaken (a lost
 * update), while code that awaits storage, WebCrypto or a resolved promise cannot.
 *
 * - Whatever waits is let in first come, first served, on a later turn of the event loop than the
 *   code let in before it; the first in at a free gate goes at once.
 * - A critical section (`blockConcurrencyWhile`, `storage.transaction()`) keeps everything else
 *   out until it ends; its own code and the I/O it awaits go on.
 * - A held operation (WebCrypto, which Node answers from its thread pool where workerd answers at
 *   once) keeps everything else out until it completes, as a storage operation does on workerd.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A critical section: everything else waits for `end()`; code run `inside` it goes on. */
export interface Section {
  inside<T>(fn: () => T): T;
  end(): void;
}

interface Waiter {
  readonly section: object | undefined;
  readonly resolve: () => void;
}

/** The gate and critical section the code running now belongs to. */
interface Place {
  readonly gate: InputGate;
  readonly section: object | undefined;
}

const current = new AsyncLocalStorage<Place>();

const nextTurn = (fn: () => void) => setImmediate(fn);

export class InputGate {
  /** Something was let in during this turn of the event loop. */
  private turnTaken = false;
  private held = 0;
  private readonly sections = new Set<object>();
  private readonly waiting: Waiter[] = [];
  private pumpScheduled = false;

  /** Nothing waits at the gate, holds it or has a critical section open. */
  get quiet(): boolean {
    return this.sections.size === 0 && this.held === 0 && this.waiting.length === 0;
  }

  /** Resolves when code of `section` (none: an event of its own) may run on the instance. */
  enter(section?: object): Promise<void> {
    if (this.mayEnter(section) && !this.waiting.some((w) => this.mayEnter(w.section))) {
      this.takeTurn();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.waiting.push({ section, resolve });
      this.pumpSoon();
    });
  }

  /** Runs an event's code (and what it awaits) as code of this gate. */
  run<T>(fn: () => T): T {
    return current.run({ gate: this, section: undefined }, fn);
  }

  /** Opens a critical section. */
  openSection(): Section {
    const token = {};
    this.sections.add(token);
    return {
      inside: (fn) => current.run({ gate: this, section: token }, fn),
      end: () => {
        if (this.sections.delete(token)) this.pumpSoon();
      },
    };
  }

  /** Keeps everything else out while `work` runs; answers what it answers. */
  hold<T>(work: Promise<T>): Promise<T> {
    this.held++;
    const release = () => {
      this.held--;
      this.pumpSoon();
    };
    work.then(release, release);
    return work;
  }

  /** A section's own code passes while that section is the only one open. */
  private mayEnter(section: object | undefined): boolean {
    if (this.turnTaken || this.held > 0) return false;
    return this.sections.size === 0 || (section !== undefined && this.sections.size === 1 && this.sections.has(section));
  }

  private takeTurn(): void {
    this.turnTaken = true;
    // The code let in runs to its first real wait within this turn; the next comes after.
    nextTurn(() => {
      this.turnTaken = false;
      this.pump();
    });
  }

  /** Lets the next one in on a later turn, never inside the code that just opened the gate. */
  private pumpSoon(): void {
    if (this.pumpScheduled || this.waiting.length === 0) return;
    this.pumpScheduled = true;
    nextTurn(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const index = this.waiting.findIndex((w) => this.mayEnter(w.section));
    if (index < 0) return;
    const [next] = this.waiting.splice(index, 1);
    this.takeTurn();
    next!.resolve();
  }
}

/**
 * `work` started by the code running now, holding its instance's gate until it completes; as it
 * is when the code runs outside any instance (the worker's own `fetch`).
 */
export function holdCurrentGate<T>(work: Promise<T>): Promise<T> {
  const place = current.getStore();
  return place ? place.gate.hold(work) : work;
}

/**
 * The completion of outside I/O the code running now awaits, let back in through its instance's
 * gate: `work`'s outcome once the gate lets it in.
 */
export function throughCurrentGate<T>(work: Promise<T>): Promise<T> {
  const place = current.getStore();
  if (!place) return work;
  const enter = () => place.gate.enter(place.section);
  return work.then(
    (value) => enter().then(() => value),
    (error: unknown) => enter().then(() => Promise.reject(error)),
  );
}

/** `fn`, called back from outside I/O (a timer), run once the current instance's gate lets it in. */
export function callbackThroughCurrentGate<A extends unknown[]>(fn: (...args: A) => unknown): (...args: A) => void {
  const place = current.getStore();
  if (!place) return fn;
  return (...args: A) => void place.gate.enter(place.section).then(() => fn(...args));
}

/** The ways code reads a request's body whole (the Body mixin's methods). */
const BODY_READS = ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'] as const;

/**
 * The request as an instance receives it: its body comes back through the gate when read, as on
 * workerd, where the body streams in from the caller and reading it is I/O. The serve process has
 * the bytes already; without this, code that reads its state, then the body, then writes could
 * never be overtaken here, though it can be on Cloudflare. The same object is kept (what the
 * worker set on it stays there).
 */
export function bodyReadsWait(request: Request): Request {
  if (request.body === null) return request;
  for (const name of BODY_READS) {
    const read = (request as unknown as Record<string, unknown>)[name];
    if (typeof read !== 'function') continue;
    Object.defineProperty(request, name, {
      configurable: true,
      writable: true,
      value: (...args: unknown[]) => throughCurrentGate(Promise.resolve((read as (...a: unknown[]) => unknown).apply(request, args))),
    });
  }
  return request;
}
