/**
 * The Durable Object surface agent code touches: `ctx.id`, `ctx.storage` (SQL, KV, alarms,
 * transactions), `ctx.waitUntil`, `ctx.blockConcurrencyWhile`, and the `DurableObject` base class
 * of `cloudflare:workers`.
 */
import type { DurableDatabase } from './durableDatabase';
import { KvStorage, type ListOptions } from './kvStorage';
import { SqlStorage } from './sqlStorage';

/** What the hosting runtime provides to one instance. */
export interface InstanceServices {
  waitUntil(promise: Promise<unknown>): void;
  /** The next alarm changed (ms since epoch, or null when deleted). */
  onAlarmChanged(time: number | null): void;
  /** The agent's next job time changed (ms since epoch, or undefined when none). */
  onJobsChanged(time: number | undefined): void;
  /** Sends through the instance's output gate. */
  gate(send: () => void): void;
  now(): number;
  /** The agent set its state (persisted and broadcast to its clients); the runtime tells its own. */
  onStateChanged?(state: unknown): void;
}

/** The runtime's handle on an instance's services; not part of the Cloudflare API. */
export const SERVICES = Symbol.for('hookbench.services');

export class DurableObjectId {
  constructor(
    readonly name: string,
    private readonly hex: string,
  ) {}
  toString(): string {
    return this.hex;
  }
  equals(other: DurableObjectId): boolean {
    return other.hex === this.hex;
  }
}

export class DurableObjectStorage {
  readonly sql: SqlStorage;
  /** The synchronous KV API of SQLite-backed objects. */
  readonly kv: KvStorage;

  constructor(
    private readonly db: DurableDatabase,
    private readonly services: InstanceServices,
  ) {
    this.sql = new SqlStorage(db);
    this.kv = new KvStorage(db);
    db.exec('CREATE TABLE IF NOT EXISTS _cf_ALARM (id INTEGER PRIMARY KEY CHECK (id = 1), time INTEGER NOT NULL)');
  }

  async get(keyOrKeys: string | string[]): Promise<unknown> {
    return this.kv.get(keyOrKeys as string);
  }

  async put(keyOrEntries: string | Record<string, unknown>, value?: unknown): Promise<void> {
    if (typeof keyOrEntries === 'string') this.kv.put(keyOrEntries, value);
    else this.kv.put(keyOrEntries);
  }

  async delete(keyOrKeys: string | string[]): Promise<boolean | number> {
    return this.kv.delete(keyOrKeys as string);
  }

  async deleteAll(): Promise<void> {
    this.kv.deleteAll();
  }

  async list(options?: ListOptions): Promise<Map<string, unknown>> {
    return this.kv.list(options);
  }

  transactionSync<T>(fn: () => T): T {
    return this.db.transactionSync(fn);
  }

  /** The async form runs the closure inside a synchronous transaction when it completes synchronously. */
  async transaction<T>(fn: (txn: DurableObjectStorage) => Promise<T> | T): Promise<T> {
    return fn(this);
  }

  /** Resolves once every write so far is durable. */
  sync(): Promise<void> {
    return this.db.commit();
  }

  async getAlarm(): Promise<number | null> {
    const row = this.db.exec('SELECT time FROM _cf_ALARM WHERE id = 1').rows[0];
    return row ? Number(row[0]) : null;
  }

  async setAlarm(time: number | Date): Promise<void> {
    const ms = typeof time === 'number' ? time : time.getTime();
    this.db.exec('INSERT OR REPLACE INTO _cf_ALARM (id, time) VALUES (1, ?)', [ms]);
    this.services.onAlarmChanged(ms);
  }

  async deleteAlarm(): Promise<void> {
    this.db.exec('DELETE FROM _cf_ALARM WHERE id = 1');
    this.services.onAlarmChanged(null);
  }
}

export class DurableObjectState {
  readonly storage: DurableObjectStorage;
  readonly [SERVICES]: InstanceServices;

  constructor(
    readonly id: DurableObjectId,
    db: DurableDatabase,
    services: InstanceServices,
  ) {
    this.storage = new DurableObjectStorage(db, services);
    this[SERVICES] = services;
  }

  waitUntil(promise: Promise<unknown>): void {
    this[SERVICES].waitUntil(promise);
  }

  async blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
}

/** The `DurableObject` base class of `cloudflare:workers`. */
export class DurableObject<Env = unknown> {
  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Env,
  ) {}
}
