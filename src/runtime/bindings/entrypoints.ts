/**
 * Calling a worker's handlers as workerd does, whichever way they are exported: an object with
 * `fetch(request, env, ctx)` / `queue(batch, env, ctx)` / `scheduled(controller, env, ctx)`, or a
 * `WorkerEntrypoint` class instantiated per call with `(ctx, env)` whose methods take the event
 * alone. Service bindings to the worker's own entrypoints are built on the same call.
 */

export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  readonly props: Record<string, unknown>;
}

type Handler = (...args: unknown[]) => unknown;

const isClass = (value: unknown): value is new (ctx: ExecutionContext, env: unknown) => Record<string, unknown> =>
  typeof value === 'function' && typeof (value as { prototype?: unknown }).prototype === 'object';

export class Entrypoints {
  constructor(
    private readonly exports: Record<string, unknown>,
    private readonly env: Record<string, unknown>,
    private readonly context: () => ExecutionContext,
  ) {}

  /** Whether `name`'s export has a `method` handler. */
  has(name: string, method: string): boolean {
    const entry = this.exports[name];
    if (isClass(entry)) return typeof (entry.prototype as Record<string, unknown>)[method] === 'function';
    return typeof (entry as Record<string, unknown> | undefined)?.[method] === 'function';
  }

  /** Calls `method` of the export `name` with the event's arguments (env and ctx added for objects). */
  async call(name: string, method: string, args: readonly unknown[]): Promise<unknown> {
    const entry = this.exports[name];
    const ctx = this.context();
    if (isClass(entry)) {
      const instance = new entry(ctx, this.env);
      const member = instance[method];
      if (typeof member !== 'function') throw new TypeError(`The RPC receiver does not implement the method "${method}".`);
      return (member as Handler).apply(instance, [...args]);
    }
    const member = (entry as Record<string, unknown> | undefined)?.[method];
    if (typeof member !== 'function') {
      if (method === 'fetch') throw new Error('Handler does not export a fetch() function.');
      throw new TypeError(`Handler does not export a ${method}() function.`);
    }
    return (member as Handler).call(entry, ...args, this.env, ctx);
  }

  /**
   * The binding `env.SERVICE` is for a service binding to this worker: `fetch` reaches the
   * entrypoint's fetch, any other member is an RPC call on a fresh instance of the class.
   */
  serviceBinding(entrypoint = 'default'): unknown {
    if (this.exports[entrypoint] === undefined) {
      throw new Error(`the service binding names the entrypoint "${entrypoint}", which the worker does not export`);
    }
    const fetch = (input: Request | string | URL, init?: RequestInit) => this.call(entrypoint, 'fetch', [new Request(input, init)]);
    return new Proxy(
      {},
      {
        get: (_target, property) => {
          if (property === 'fetch') return fetch;
          // Not a thenable: awaiting the binding must give the binding.
          if (typeof property !== 'string' || property === 'then') return undefined;
          return (...args: unknown[]) => {
            // An RPC call names a method the receiver may lack: workerd's words, whatever the export is.
            if (!this.has(entrypoint, property)) return Promise.reject(new TypeError(`The RPC receiver does not implement the method "${property}".`));
            return this.call(entrypoint, property, args);
          };
        },
      },
    );
  }
}
