/**
 * Everything a worker's config binds besides Durable Objects, built for one runtime: the KV
 * namespaces, D1 databases, R2 buckets and queue producers put in `env`, the queue broker that
 * feeds the worker's `queue()` handler, the cron triggers that call `scheduled()`, and the service
 * bindings to the worker's own entrypoints. Closed (committed) with the runtime.
 */
import type { BindingChange, BindingSummary } from '../../core/contract/bindings';
import type { TimerHandle } from '../../core/timers';
import type { Platform } from '../platform';
import type { BindingsConfig } from '../../core/workerConfig/bindingsConfig';
import { nextCronTime, parseCron } from '../../core/cron';
import { bindingDir, BindingStore } from './bindingStore';
import { BrowserBinding } from './browser';
import { D1Database } from './d1';
import type { Entrypoints } from './entrypoints';
import { KvNamespace } from './kv';
import { QueueBroker, type MessageBatch } from './queues';
import { R2Bucket } from './r2';
import { RateLimiter } from './rateLimit';
import { AnalyticsEngineDataset } from './analyticsEngine';
import { SendEmail } from './sendEmail';

export interface WorkerBindingsOptions {
  readonly config: BindingsConfig;
  readonly entrypoints: Entrypoints;
}

/** Node's timers cap a delay at 2^31-1 ms; a cron a month away is re-armed on the way. */
const MAX_DELAY = 2 ** 31 - 1;

export class WorkerBindings {
  /** What the bindings add to `env`, by binding name. */
  readonly env: Record<string, unknown> = {};
  readonly kv = new Map<string, KvNamespace>();
  readonly d1 = new Map<string, D1Database>();
  readonly r2 = new Map<string, R2Bucket>();
  readonly broker: QueueBroker | undefined;
  private readonly stores: BindingStore[] = [];
  private readonly cronTimers = new Map<string, TimerHandle>();
  private stopped = false;

  constructor(
    private readonly platform: Platform,
    private readonly options: WorkerBindingsOptions,
  ) {
    const { sql, dataDir, timers, log } = platform;
    const { config } = options;
    const now = () => timers.now();
    const store = (kind: 'kv' | 'd1' | 'r2' | 'queues', id: string, schema: readonly string[]) => {
      const change: BindingChange = kind === 'queues' ? { kind: 'queue' } : { kind, target: id };
      const written = () => platform.bindingChanges.fire(change);
      const made = new BindingStore({ sql, dir: bindingDir(dataDir, kind, id), schema, written, log });
      this.stores.push(made);
      return made;
    };
    // Bindings with the same id share one store, as they share one namespace on Cloudflare.
    const shared = <T>(kind: 'kv' | 'd1' | 'r2', id: string, cache: Map<string, T>, make: () => T): T => {
      const key = `${kind}:${id}`;
      const found = cache.get(key);
      if (found) return found;
      const made = make();
      cache.set(key, made);
      return made;
    };
    const byId = new Map<string, unknown>();
    for (const { binding, id } of config.kvNamespaces) {
      const ns = shared('kv', id, byId, () => new KvNamespace(store('kv', id, KvNamespace.schema), now)) as KvNamespace;
      this.kv.set(binding, ns);
      this.env[binding] = ns;
    }
    for (const { binding, id } of config.d1Databases) {
      const db = shared('d1', id, byId, () => new D1Database(store('d1', id, []))) as D1Database;
      this.d1.set(binding, db);
      this.env[binding] = db;
    }
    for (const { binding, id } of config.r2Buckets) {
      const bucket = shared('r2', id, byId, () => new R2Bucket(store('r2', id, R2Bucket.schema), now)) as R2Bucket;
      this.r2.set(binding, bucket);
      this.env[binding] = bucket;
    }
    if (config.queueProducers.length > 0 || config.queueConsumers.length > 0) {
      this.broker = new QueueBroker({
        store: store('queues', 'queues', QueueBroker.schema),
        consumers: config.queueConsumers,
        deliver: (batch) => this.deliver(batch),
        logger: platform.logger,
        now,
        timers,
      });
      for (const producer of config.queueProducers) this.env[producer.binding] = this.broker.producer(producer.queue, producer.deliveryDelaySeconds);
    }
    for (const service of config.services) this.env[service.binding] = options.entrypoints.serviceBinding(service.entrypoint);
    if (config.browser !== undefined) this.env[config.browser] = new BrowserBinding(config.browser, () => platform.browser?.());
    for (const limit of config.rateLimits ?? []) this.env[limit.binding] = new RateLimiter(limit, now);
    for (const dataset of config.analyticsEngine ?? []) this.env[dataset.binding] = new AnalyticsEngineDataset(dataset, dataDir, platform.logger, now);
    for (const email of config.sendEmail ?? []) this.env[email.binding] = new SendEmail(email, dataDir, platform.logger);
  }

  /** The KV, D1 and R2 bindings with the ids they reach, and every queue produced or consumed (read only). */
  summaries(): BindingSummary[] {
    const { kvNamespaces, d1Databases, r2Buckets, queueProducers, queueConsumers } = this.options.config;
    const queues = new Set([
      ...queueProducers.map((p) => p.queue),
      ...queueConsumers.flatMap((c) => (c.deadLetterQueue ? [c.queue, c.deadLetterQueue] : [c.queue])),
    ]);
    return [
      ...kvNamespaces.map(({ binding, id }) => ({ kind: 'kv' as const, name: binding, target: id })),
      ...d1Databases.map(({ binding, id }) => ({ kind: 'd1' as const, name: binding, target: id })),
      ...r2Buckets.map(({ binding, id }) => ({ kind: 'r2' as const, name: binding, target: id })),
      ...[...queues].sort().map((queue) => ({ kind: 'queue' as const, name: queue, target: queue })),
    ];
  }

  private async deliver(batch: MessageBatch): Promise<void> {
    if (!this.options.entrypoints.has('default', 'queue')) {
      throw new Error(`the worker consumes the queue "${batch.queue}" (queues.consumers) but exports no queue() handler`);
    }
    try {
      await this.options.entrypoints.call('default', 'queue', [batch]);
    } catch (error) {
      this.platform.handlerErrors.fire({ handler: 'queue', target: batch.queue, error });
      throw error;
    }
  }

  /** Starts queue delivery (the backlog a previous run left included) and the cron triggers. */
  async start(): Promise<void> {
    await this.broker?.start();
    for (const cron of this.options.config.crons) this.armCron(cron);
  }

  private armCron(cron: string): void {
    if (this.stopped) return;
    const due = nextCronTime(parseCron(cron), this.platform.timers.now());
    const arm = () => {
      const wait = due - this.platform.timers.now();
      if (wait > MAX_DELAY) {
        this.cronTimers.set(cron, this.platform.timers.after(MAX_DELAY, arm));
        return;
      }
      this.cronTimers.set(
        cron,
        this.platform.timers.after(Math.max(0, wait), () => {
          void this.scheduled(cron, due)
            .catch((error: unknown) => {
              this.platform.logger.error(`[cron] scheduled() for "${cron}" threw: ${(error as Error)?.stack ?? String(error)}`);
              this.platform.handlerErrors.fire({ handler: 'scheduled', target: cron, error });
            })
            .finally(() => this.armCron(cron));
        }),
      );
    };
    arm();
  }

  /** Runs the worker's `scheduled()` as a cron trigger at `scheduledTime` would. */
  async scheduled(cron: string, scheduledTime: number): Promise<void> {
    // workerd's ScheduledController: cron, scheduledTime and noRetry() (no `type`).
    const controller = { cron, scheduledTime, noRetry: () => undefined };
    await this.options.entrypoints.call('default', 'scheduled', [controller]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const handle of this.cronTimers.values()) handle.cancel();
    this.cronTimers.clear();
    await this.broker?.stop();
    await Promise.all(this.stores.map((store) => store.close()));
  }
}
