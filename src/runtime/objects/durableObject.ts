/**
 * The Durable Object surface agent code touches: `ctx.id`, `ctx.storage` (SQL, KV, alarms,
 * transactions), `ctx.waitUntil`, `ctx.blockConcurrencyWhile`, and the `DurableObject` base class
 * of `cloudflare:workers`.
 */
import type { Timers } from '../../core/timers';
import type { DurableDatabase } from '../storage/durableDatabase';
import type { HibernatableSockets } from './hibernation';
import { KvStorage, type ListOptions } from './kvStorage';
import { SqlStorage } from './sqlStorage';
import type { WebSocketRequestResponsePair, WorkerWebSocket } from './webSocket';

/** What the hosting runtime provides to one instance. */
export interface InstanceServices {
  waitUntil(promise: Promise<unknown>): void;
  /** The next alarm changed (ms since epoch, or null when deleted). */
  onAlarmChanged(time: number | null): void;
  /** What `getAlarm()` answers given the stored row (null while the handler runs). */
  alarmView?(stored: number | null): number | null;
  /** The instance's hibernatable WebSockets (kept by the host across evictions). */
  sockets?: HibernatableSockets;
  /** Runs `fn` as a critical section: every other event of the instance waits until it settles. */
  critical?<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * `blockConcurrencyWhile`: runs `fn` holding every other event; a throw or the 30 s timeout
   * resets the object (the returned promise then never settles: the events fail instead).
   */
  blockWhile?<T>(fn: () => Promise<T> | T): Promise<T>;
  /** The agent's next job time changed (ms since epoch, or undefined when none). */
  onJobsChanged(time: number | undefined): void;
  /** Sends through the instance's output gate. */
  gate(send: () => void): void;
  /** The runtime's clock and timers: what the instance dates and waits with. */
  readonly timers: Timers;
  /** The agent set its state (persisted and broadcast to its clients); the runtime tells its own. */
  onStateChanged?(state: unknown): void;
}

/** The runtime's handle on an instance's services; not part of the Cloudflare API. */
export const SERVICES = Symbol.for('hookbench.services');

export class DurableObjectId {
  constructor(
    /** Set for ids made from a name (`idFromName`, `getByName`); undefined for unique ids. */
    readonly name: string | undefined,
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

  get<T = unknown>(key: string): Promise<T | undefined>;
  get<T = unknown>(keys: string[]): Promise<Map<string, T>>;
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

  /** Deletes every key and every SQL table of the object (its alarm stays, as on Cloudflare). */
  async deleteAll(): Promise<void> {
    this.db.transactionSync(() => {
      this.kv.deleteAll();
      const tables = this.db.exec(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE '_hookbench_%'",
      ).rows;
      for (const [name] of tables) this.db.exec(`DROP TABLE IF EXISTS "${String(name).replace(/"/g, '""')}"`);
    });
  }

  async list(options?: ListOptions): Promise<Map<string, unknown>> {
    return this.kv.list(options);
  }

  transactionSync<T>(fn: () => T): T {
    return this.db.transactionSync(fn);
  }

  /**
   * Runs the closure atomically: its writes all apply, or none when it throws or calls
   * `txn.rollback()`. Other events of the instance wait until it ends, so nothing interleaves.
   */
  async transaction<T>(fn: (txn: DurableObjectTransaction) => Promise<T> | T): Promise<T> {
    const run = () => this.db.transactionAsync(async (rollback) => fn(Object.assign(Object.create(this) as DurableObjectStorage, { rollback })));
    return this.services.critical ? this.services.critical(run) : run();
  }

  /** Resolves once every write so far is durable. */
  sync(): Promise<void> {
    return this.db.commit();
  }

  async getAlarm(): Promise<number | null> {
    const stored = this.storedAlarm();
    return this.services.alarmView ? this.services.alarmView(stored) : stored;
  }

  /** The alarm row as stored, whatever runs now. */
  storedAlarm(): number | null {
    const row = this.db.exec('SELECT time FROM _cf_ALARM WHERE id = 1').rows[0];
    return row ? Number(row[0]) : null;
  }

  async setAlarm(time: number | Date): Promise<void> {
    const ms = typeof time === 'number' ? time : time instanceof Date ? time.getTime() : NaN;
    if (!Number.isFinite(ms)) throw new TypeError("Failed to execute 'setAlarm' on 'DurableObjectStorage': parameter 1 is not of type 'date'.");
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

  /** Runs `fn` while no other event (request, message, alarm) reaches the instance. */
  async blockConcurrencyWhile<T>(fn: () => Promise<T> | T): Promise<T> {
    const services = this[SERVICES];
    if (services.blockWhile) return services.blockWhile(fn);
    const run = () => Promise.resolve().then(fn);
    return services.critical ? services.critical(run) : run();
  }

  acceptWebSocket(ws: WorkerWebSocket, tags?: string[]): void {
    this.sockets().accept(ws, tags);
  }

  getWebSockets(tag?: string): WorkerWebSocket[] {
    return this[SERVICES].sockets?.webSockets(tag) ?? [];
  }

  getTags(ws: WorkerWebSocket): string[] {
    return this.sockets().tags(ws);
  }

  setWebSocketAutoResponse(pair?: WebSocketRequestResponsePair): void {
    this.sockets().setAutoResponse(pair);
  }

  getWebSocketAutoResponse(): WebSocketRequestResponsePair | null {
    return this[SERVICES].sockets?.getAutoResponse() ?? null;
  }

  getWebSocketAutoResponseTimestamp(ws: WorkerWebSocket): Date | null {
    return this[SERVICES].sockets?.autoResponseTimestamp(ws) ?? null;
  }

  /** Kept with the sockets (workerd's hibernation manager), so it outlives an eviction. */
  setHibernatableWebSocketEventTimeout(timeoutMs?: number): void {
    if (!timeoutMs) {
      if (this[SERVICES].sockets) this[SERVICES].sockets.eventTimeout = null;
      return;
    }
    if (timeoutMs > 604_800_000) throw new Error('Event timeout should not exceed 604800000 ms.');
    this.sockets().eventTimeout = timeoutMs;
  }

  getHibernatableWebSocketEventTimeout(): number | null {
    return this[SERVICES].sockets?.eventTimeout ?? null;
  }

  private sockets(): HibernatableSockets {
    const sockets = this[SERVICES].sockets;
    if (!sockets) throw new Error('this runtime does not host hibernatable WebSockets');
    return sockets;
  }
}

/** The `txn` a `transaction()` closure receives: the storage API plus `rollback()`. */
export type DurableObjectTransaction = DurableObjectStorage & { rollback(): void };

/** The `DurableObject` base class of `cloudflare:workers`. */
export class DurableObject<Env = unknown> {
  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Env,
  ) {}
}
