/**
 * A worker as Cloudflare runs it: its default export's `fetch(request, env, ctx)`, an `env` made
 * of the wrangler config's vars, the secrets, and one namespace per Durable Object binding.
 */
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { InstanceEvent, InstanceSummary } from '../contract/instances';
import type { Logger } from '../log';
import * as agentsModule from './agentsModule';
import * as cloudflareWorkers from './cloudflareWorkersModule';
import type { DurableObjectClass } from './instanceHost';
import { encodeName } from './names';
import { DurableObjectNamespace } from './namespace';
import type { SqlHeaps } from './sqlHeaps';
import { camelCaseToKebabCase } from './protocol';
import type { DurableObjectBinding } from './wranglerConfig';

export interface WorkerRuntimeOptions {
  readonly exports: Record<string, unknown>;
  /** The object the worker's code sees as `env` (also `cloudflare:workers`' `env`); filled in here. */
  readonly env: Record<string, unknown>;
  readonly bindings: readonly DurableObjectBinding[];
  readonly vars: Readonly<Record<string, string>>;
  readonly secrets: Readonly<Record<string, string>>;
  readonly dataDir: string;
  readonly sql: SqlJsStatic;
  /** Separate sql.js heaps for the instances' databases (sqlHeaps.ts); without, all share `sql`'s. */
  readonly heaps?: SqlHeaps;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Idle time before an instance is evicted (default 60 s). */
  readonly idleMs?: number;
  readonly snapshotAfterBytes?: number;
  /** What happens to instances: created, woken, evicted, a new state, an event stored. */
  readonly onInstance?: (event: InstanceEvent) => void;
}

interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  readonly props: Record<string, unknown>;
}

export class WorkerRuntime {
  readonly env: Record<string, unknown>;
  readonly namespaces: readonly DurableObjectNamespace[];
  private readonly background = new Set<Promise<unknown>>();

  constructor(private readonly options: WorkerRuntimeOptions) {
    const env: Record<string, unknown> = Object.assign(options.env, options.vars, options.secrets);
    const report = (event: InstanceEvent) => options.onInstance?.(event);
    const namespaces = options.bindings.map((binding) => {
      const cls = options.exports[binding.className];
      if (typeof cls !== 'function') {
        throw new Error(`the worker does not export the class ${binding.className} named by the Durable Object binding ${binding.name}`);
      }
      const namespace: DurableObjectNamespace = new DurableObjectNamespace(binding.name, binding.className, cls as DurableObjectClass, () => env, {
        sql: options.sql,
        heaps: options.heaps,
        dir: path.join(options.dataDir, encodeName(camelCaseToKebabCase(binding.name))),
        logger: options.logger,
        now: options.now ?? Date.now,
        idleMs: options.idleMs ?? 60_000,
        snapshotAfterBytes: options.snapshotAfterBytes,
        onWake: (name, created) => {
          if (created) report({ kind: 'created', namespace: binding.name, name, instance: summary(name, true) });
          report({ kind: 'woken', namespace: binding.name, name, instance: summary(name, true) });
        },
        onEvict: (name) => report({ kind: 'evicted', namespace: binding.name, name, instance: summary(name, false) }),
        onState: (name, state) => report({ kind: 'state', namespace: binding.name, name, state }),
        onEventStored: (name, event) => report({ kind: 'event', namespace: binding.name, name, event }),
      });
      const summary = (name: string, awake: boolean): InstanceSummary => ({
        namespace: binding.name,
        agent: camelCaseToKebabCase(binding.name),
        className: binding.className,
        name,
        awake,
        connections: awake ? (namespace.existingHost(name)?.connectionCount ?? 0) : 0,
      });
      return namespace;
    });
    for (const namespace of namespaces) env[namespace.binding] = namespace;
    this.env = env;
    this.namespaces = namespaces;
  }

  /** The modules a bundle of this worker imports instead of the real packages. */
  static providedModules(env: Record<string, unknown>): Record<string, unknown> {
    return { agents: agentsModule, 'cloudflare:workers': { ...cloudflareWorkers, env } };
  }

  async fetch(request: Request): Promise<Response> {
    const entry = this.options.exports['default'];
    const ctx: ExecutionContext = {
      waitUntil: (promise) => this.track(promise),
      passThroughOnException: () => undefined,
      props: {},
    };
    if (typeof entry === 'function' && typeof (entry as { prototype?: { fetch?: unknown } }).prototype?.fetch === 'function') {
      const instance = new (entry as new (ctx: ExecutionContext, env: unknown) => { fetch(r: Request): Promise<Response> })(ctx, this.env);
      return instance.fetch(request);
    }
    const handler = entry as { fetch?: (request: Request, env: unknown, ctx: ExecutionContext) => Promise<Response> } | undefined;
    if (typeof handler?.fetch !== 'function') throw new Error('Handler does not export a fetch() function.');
    return handler.fetch(request, this.env, ctx);
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error: unknown) => this.options.logger.error(`waitUntil: ${(error as Error)?.stack ?? String(error)}`));
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  /** Waits for background work, then closes every instance (committing and snapshotting). */
  async shutdown(): Promise<void> {
    await Promise.allSettled([...this.background]);
    await Promise.all(this.namespaces.map((namespace) => namespace.shutdown()));
  }
}
