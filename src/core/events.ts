/**
 * Host-free lifetime and event primitives, the same small set the Agents SDK keeps in
 * `src/core/events.ts`, so that core code never needs `vscode` to manage subscriptions.
 */

/** Something that holds a resource until it is disposed. */
export interface Disposable {
  dispose(): void;
}

/** Wraps a function as a {@link Disposable} that runs it at most once. */
export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/**
 * Owns a set of disposables and disposes them together, newest first (the reverse of the order
 * they were acquired in). Adding to a disposed store disposes the newcomer at once instead of
 * leaking it.
 */
export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) item.dispose();
    else this.items.push(item);
    return item;
  }

  /** Disposes every item, reporting all failures together so one bad item cannot leak the rest. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    for (const item of this.items.splice(0).reverse()) {
      try {
        item.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'Several disposables failed');
  }
}

/** A subscription function: call it with a listener, dispose the result to unsubscribe. */
export type Event<T> = (listener: (value: T) => void) => Disposable;

/**
 * A typed event source. Listeners run synchronously in subscription order; one that throws does
 * not stop the others, its error goes to `onListenerError` (rethrown asynchronously by default so
 * it still surfaces).
 */
export class Emitter<T> implements Disposable {
  private listeners = new Set<(value: T) => void>();
  private disposed = false;

  constructor(
    private readonly onListenerError: (error: unknown) => void = (error) =>
      queueMicrotask(() => {
        throw error;
      }),
  ) {}

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return toDisposable(() => undefined);
    // Wrap so the same function can subscribe twice and unsubscribe each time independently.
    const entry = (value: T) => listener(value);
    this.listeners.add(entry);
    return toDisposable(() => this.listeners.delete(entry));
  };

  fire(value: T): void {
    // Most events fire with no one listening (the live feed's, with no client): nothing to copy then.
    if (this.listeners.size === 0) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}
