/**
 * What is the same for the whole serve process, built once at start and handed down whole through
 * every layer of the runtime (the worker, its namespaces and their instance hosts, the bindings,
 * the workflows), so that no layer copies another's options: sql.js and the heaps instances'
 * databases live in, the logger, the timers (and so the clock), the data folder, the limits, and
 * the sink every instance event is fired into. Each layer keeps beside it only what is its own
 * (an entry, a config, a binding's name, a folder).
 *
 * It sits at the runtime's root, outside its rooms, so that every room may import it; of the
 * rooms it names only storage, which every other one may reach.
 */
import type { SqlJsStatic } from 'sql.js';
import type { BindingChange } from '../core/contract/bindings';
import type { InstanceEvent } from '../core/contract/instances';
import { internalPath } from '../core/contract/dataFolder';
import { Emitter } from '../core/events';
import type { Logger } from '../core/log';
import { realTimers, type Timers } from '../core/timers';
import type { BrowserService } from './browserService';
import { budgetBytesOf, MemoryBudget } from './memoryBudget';
import { SharedLog } from './storage/sharedLog';
import type { SqlHeaps } from './storage/sqlHeaps';

/** The runtime's limits, the same for every instance of the process. */
export interface RuntimeLimits {
  /** Quiet time after which an instance with no open connection is evicted (`--idle-ms`; Infinity: never). */
  readonly idleMs: number;
  /** Journal bytes after which an instance's database is snapshotted (undefined: durableDatabase.ts's default). */
  readonly snapshotAfterBytes: number | undefined;
  /** The awake instances' memory budget in MiB (`--memory-budget`; 0: none), memoryBudget.ts. */
  readonly memoryBudgetMiB: number;
}

export const DEFAULT_RUNTIME_LIMITS: RuntimeLimits = { idleMs: 60_000, snapshotAfterBytes: undefined, memoryBudgetMiB: 0 };

export interface Platform {
  /** sql.js for the process's own databases (bindings, workflows) and, without `heaps`, the instances'. */
  readonly sql: SqlJsStatic;
  /** Separate heaps for the instances' databases (storage/sqlHeaps.ts); undefined: they share `sql`'s. */
  readonly heaps: SqlHeaps | undefined;
  readonly logger: Logger;
  /** Every wait of the runtime and its clock: real timers in serve, a manual clock in tests. */
  readonly timers: Timers;
  /** The data folder: one folder per namespace, binding and workflow, and serve's own `_hookbench`. */
  readonly dataDir: string;
  /**
   * The data folder's shared log: what every database of the process commits in one turn is made
   * durable with one sync (storage/sharedLog.ts). It lives in `<data>/_hookbench/log`.
   */
  readonly log: SharedLog;
  readonly limits: RuntimeLimits;
  /** Puts idle instances to sleep when the awake ones hold more than `limits.memoryBudgetMiB`; undefined without a budget. */
  readonly memory: MemoryBudget | undefined;
  /**
   * What happens to instances (created, woken, evicted, a state set, an event stored), fired where
   * it happens and read where it is shown (the admin API's live feed).
   */
  readonly instanceEvents: Emitter<InstanceEvent>;
  /**
   * A handler the platform called on its own threw: a queue() batch, an alarm(), a cron's
   * scheduled(). Read by serve, which reports it as a worker exception (the extension's toast).
   */
  readonly handlerErrors: Emitter<HandlerError>;
  /** A binding's data written (KV, D1, R2, queues), fired once it is durable; read by the live feed. */
  readonly bindingChanges: Emitter<BindingChange>;
  /** The browser the Browser Rendering binding drives (serve's render emulator), when it runs. */
  readonly browser?: () => BrowserService | undefined;
}

/** A handler called by the platform, not by a request, that threw. */
export interface HandlerError {
  readonly handler: 'queue' | 'alarm' | 'scheduled';
  /** What it ran for: the queue, the instance (`BINDING/name`), the cron expression. */
  readonly target: string;
  readonly error: unknown;
}

/** What a platform is built from; what is left out takes the serve process's default. */
export interface PlatformParts {
  readonly sql: SqlJsStatic;
  readonly heaps?: SqlHeaps;
  readonly logger: Logger;
  readonly dataDir: string;
  readonly timers?: Timers;
  readonly limits?: Partial<RuntimeLimits>;
  readonly browser?: () => BrowserService | undefined;
}

/** Builds the platform once, at the start of the process (or of a test). */
export function createPlatform(parts: PlatformParts): Platform {
  const limits: RuntimeLimits = {
    idleMs: parts.limits?.idleMs ?? DEFAULT_RUNTIME_LIMITS.idleMs,
    snapshotAfterBytes: parts.limits?.snapshotAfterBytes ?? DEFAULT_RUNTIME_LIMITS.snapshotAfterBytes,
    memoryBudgetMiB: parts.limits?.memoryBudgetMiB ?? DEFAULT_RUNTIME_LIMITS.memoryBudgetMiB,
  };
  const timers = parts.timers ?? realTimers;
  return {
    sql: parts.sql,
    heaps: parts.heaps,
    logger: parts.logger,
    timers,
    dataDir: parts.dataDir,
    log: new SharedLog(parts.dataDir, internalPath(parts.dataDir, 'log')),
    limits,
    memory: limits.memoryBudgetMiB > 0 ? new MemoryBudget(budgetBytesOf(limits.memoryBudgetMiB), timers) : undefined,
    instanceEvents: new Emitter<InstanceEvent>(),
    bindingChanges: new Emitter<BindingChange>(),
    handlerErrors: new Emitter<HandlerError>(),
    ...(parts.browser ? { browser: parts.browser } : {}),
  };
}
