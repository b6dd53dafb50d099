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
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { InstanceEvent } from '../contract/instances';
import { Emitter } from '../events';
import type { Logger } from '../log';
import { realTimers, type Timers } from '../timers';
import type { BrowserService } from './browserService';
import { SharedLog } from './storage/sharedLog';
import type { SqlHeaps } from './storage/sqlHeaps';

/** The runtime's limits, the same for every instance of the process. */
export interface RuntimeLimits {
  /** Quiet time after which an instance with no open connection is evicted (`--idle-ms`; Infinity: never). */
  readonly idleMs: number;
  /** Journal bytes after which an instance's database is snapshotted (undefined: durableDatabase.ts's default). */
  readonly snapshotAfterBytes: number | undefined;
}

export const DEFAULT_RUNTIME_LIMITS: RuntimeLimits = { idleMs: 60_000, snapshotAfterBytes: undefined };

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
  /**
   * What happens to instances (created, woken, evicted, a state set, an event stored), fired where
   * it happens and read where it is shown (the admin API's live feed).
   */
  readonly instanceEvents: Emitter<InstanceEvent>;
  /** The browser the Browser Rendering binding drives (serve's render emulator), when it runs. */
  readonly browser?: () => BrowserService | undefined;
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
  };
  return {
    sql: parts.sql,
    heaps: parts.heaps,
    logger: parts.logger,
    timers: parts.timers ?? realTimers,
    dataDir: parts.dataDir,
    log: new SharedLog(parts.dataDir, path.join(parts.dataDir, '_hookbench', 'log')),
    limits,
    instanceEvents: new Emitter<InstanceEvent>(),
    ...(parts.browser ? { browser: parts.browser } : {}),
  };
}
