/**
 * One live Durable Object instance: woken from disk on first use (snapshot + journal), `onStart`
 * before the first request, every reply behind the output gate, alarms and agent jobs on timers,
 * and evicted after a quiet spell with no connections (the next request wakes it again).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { Logger } from '../log';
import { Agent } from './agent';
import { Connection, type Socket } from './connection';
import { InstanceClosedError, StorageWriteError } from './errors';
import { DurableDatabase } from './durableDatabase';
import { DurableObjectState, type DurableObjectId, type InstanceServices } from './durableObject';
import { nanoid } from './jobs';
import { OutputGate } from './outputGate';
import type { SqlHeaps } from './sqlHeaps';
import { writePrivate } from './privateFiles';
import type { EventRow } from '../contract/instances';
import { provideInstanceNotices } from '../contract/notes';

export interface HostDeps {
  readonly sql: SqlJsStatic;
  /** Separate sql.js heaps to open databases in, instead of `sql`'s one heap. */
  readonly heaps?: SqlHeaps;
  readonly dir: string;
  readonly logger: Logger;
  readonly now: () => number;
  readonly idleMs: number;
  readonly snapshotAfterBytes?: number;
  /** `created` on the first wake ever, when the instance's folder was just made. */
  readonly onWake?: (name: string, created: boolean) => void;
  readonly onEvict?: (name: string) => void;
  readonly onState?: (name: string, state: unknown) => void;
  readonly onEventStored?: (name: string, event: EventRow) => void;
}

export type DurableObjectClass = new (ctx: DurableObjectState, env: never) => object;

/** What the runtime calls on an instance: `fetch`, `alarm`, and any method through RPC. */
type HostedObject = Record<string, unknown> & { fetch?: (request: Request) => Promise<Response>; alarm?: () => Promise<void> };

interface Live {
  readonly db: DurableDatabase;
  readonly object: HostedObject;
  readonly gate: OutputGate;
  readonly timers: Set<NodeJS.Timeout>;
  /** Lets go of the database's heap, once it is closed. */
  readonly release: (() => void) | undefined;
}

/** Symbol on a Response that carries a WebSocket upgrade for the server to complete. */
export const UPGRADE = Symbol.for('hookbench.upgrade');

export type UpgradeResponse = Response & { [UPGRADE]: (socket: Socket) => SocketHandlers };

export interface SocketHandlers {
  message(data: string | Uint8Array): void;
  close(code: number, reason: string): void;
}

export class InstanceHost {
  private live: Promise<Live> | undefined;
  private active = 0;
  private connections = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private jobTimer: NodeJS.Timeout | undefined;
  private alarmTimer: NodeJS.Timeout | undefined;
  private background = new Set<Promise<unknown>>();
  /** Closes still running: waking again waits for them, so two databases never share the folder. */
  private closing: Promise<unknown> | undefined;
  /** Set by shutdown: this host takes no more work (a new host serves the instance). */
  private stopped = false;
  private onDrained: (() => void) | undefined;
  /** Open WebSockets, closed with 1012 when the host shuts down so clients reconnect to the new one. */
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly name: string,
    readonly id: DurableObjectId,
    private readonly cls: DurableObjectClass,
    private readonly env: () => unknown,
    private readonly deps: HostDeps,
  ) {}

  get isAwake(): boolean {
    return this.live !== undefined;
  }

  private wake(): Promise<Live> {
    this.live ??= (async () => {
      // A closing snapshot deletes the journal generations it covers: opening before it finishes
      // would append to a generation about to be deleted.
      while (this.closing) await this.closing;
      // With heaps (sqlHeaps.ts), the database lives in a heap that is dropped once its last database closes.
      const lease = this.deps.heaps?.acquire();
      let db: DurableDatabase;
      try {
        db = await DurableDatabase.open({ sql: lease ? await lease.sql : this.deps.sql, dir: this.deps.dir, snapshotAfterBytes: this.deps.snapshotAfterBytes });
      } catch (error) {
        lease?.release();
        throw error;
      }
      // The folder name is an encoding (hashed for long names): keep the real name beside it.
      const nameFile = path.join(this.deps.dir, 'name');
      const created = !fs.existsSync(nameFile);
      if (created) writePrivate(nameFile, this.name);
      if (db.droppedBytes > 0) this.deps.logger.warn(`${this.name}: dropped a torn journal tail of ${db.droppedBytes} bytes (never acknowledged)`);
      const timers = new Set<NodeJS.Timeout>();
      const gate = new OutputGate(db, (error) => this.deps.logger.error(`${this.name}: ${(error as Error).message}`));
      const services: InstanceServices = {
        waitUntil: (promise) => this.track(promise),
        onAlarmChanged: (time) => this.armAlarm(time),
        onJobsChanged: (time) => this.armJobs(time),
        gate: (send) => gate.send(send),
        now: this.deps.now,
        onStateChanged: (state) => this.deps.onState?.(this.name, state),
      };
      const ctx = new DurableObjectState(this.id, db, services);
      provideInstanceNotices(ctx, { eventStored: (event) => this.deps.onEventStored?.(this.name, event) });
      const object = new this.cls(ctx, this.env() as never) as HostedObject;
      const live = { db, object, gate, timers, release: lease?.release };
      const alarm = await ctx.storage.getAlarm();
      if (alarm !== null) this.armAlarm(alarm);
      this.deps.onWake?.(this.name, created);
      return live;
    })();
    this.live.catch(() => (this.live = undefined));
    return this.live;
  }

  /** Runs `fn` on the woken instance, then holds its result until the writes it made are durable. */
  private async run<T>(fn: (live: Live) => Promise<T>): Promise<T> {
    if (this.stopped) throw new InstanceClosedError(this.name);
    this.active++;
    clearTimeout(this.idleTimer);
    try {
      const live = await this.wake();
      if (live.object instanceof Agent) await live.object.__unsafe_ensureInitialized();
      const before = live.db.writeCount;
      const result = await fn(live);
      // The output gate: hold the result until what it wrote is durable. Code that wrote nothing
      // (a read, getAgentByName's start) must not wait for other requests' commits.
      if (live.db.writeCount > before || live.db.writeCount > live.db.durableWriteCount) await live.db.commit();
      return result;
    } catch (error) {
      if (error instanceof StorageWriteError) this.dropBroken();
      throw error;
    } finally {
      this.active--;
      if (this.active === 0) this.onDrained?.();
      this.armIdle();
    }
  }

  /** Runs `fn` against the woken instance's database (the admin API's inspector). */
  inspect<T>(fn: (db: DurableDatabase, object: unknown) => T): Promise<T> {
    return this.run(async ({ db, object }) => fn(db, object));
  }

  get connectionCount(): number {
    return this.connections;
  }

  get directory(): string {
    return this.deps.dir;
  }

  async ensureStarted(): Promise<void> {
    await this.run(async () => undefined);
  }

  fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') return Promise.resolve(this.upgrade(request));
    return this.run(async ({ object }) => {
      if (typeof object.fetch !== 'function') throw new Error('Handler does not export a fetch() function.');
      return (await object.fetch(request)) as Response;
    });
  }

  /** A call through a stub: any method of the object (DO RPC), awaited, behind the output gate. */
  rpc(method: string, args: unknown[]): Promise<unknown> {
    return this.run(async ({ object }) => {
      const fn = object[method];
      if (typeof fn !== 'function') throw new TypeError(`The RPC receiver does not implement the method "${method}".`);
      return (fn as (...a: unknown[]) => unknown).apply(object, args);
    });
  }

  private upgrade(request: Request): UpgradeResponse {
    const response = new Response(null, { status: 200 }) as UpgradeResponse;
    response[UPGRADE] = (socket) => this.connect(socket, request);
    return response;
  }

  private connect(socket: Socket, request: Request): SocketHandlers {
    const url = new URL(request.url);
    const id = url.searchParams.get('_pk') ?? nanoid();
    this.connections++;
    this.sockets.add(socket);
    clearTimeout(this.idleTimer);
    let connection: Connection | undefined;
    const ready = this.run(async ({ object, gate }) => {
      if (!(object instanceof Agent)) throw new Error('WebSocket connections need an Agent');
      connection = new Connection(id, request.url, socket, (send) => gate.send(send));
      await object.__hb_connect(connection, request);
      return object;
    });
    ready.catch((error: unknown) => {
      this.deps.logger.error(`${this.name}: connect failed: ${(error as Error).message}`);
      socket.close(1011, 'Internal error');
    });
    return {
      message: (data) => {
        void ready
          .then((agent) => this.run(() => agent.__hb_message(connection!, typeof data === 'string' ? data : data)))
          .catch((error: unknown) => this.deps.logger.error(`${this.name}: ${(error as Error).stack ?? String(error)}`));
      },
      close: (code, reason) => {
        this.connections--;
        this.sockets.delete(socket);
        void ready
          .then((agent) => this.run(() => agent.__hb_close(connection!, code, reason, code !== 1006)))
          .catch(() => undefined)
          .finally(() => this.armIdle());
      },
    };
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error: unknown) => this.deps.logger.error(`${this.name}: waitUntil: ${(error as Error)?.stack ?? String(error)}`));
    this.background.add(tracked);
    void tracked.finally(() => {
      this.background.delete(tracked);
      this.armIdle();
    });
  }

  private armJobs(time: number | undefined): void {
    clearTimeout(this.jobTimer);
    if (time === undefined) return;
    this.jobTimer = setTimeout(() => {
      this.jobTimer = undefined;
      this.track(this.run(async ({ object }) => (object instanceof Agent ? object.__hb_runJobs() : undefined)));
    }, Math.max(0, time - this.deps.now()));
  }

  private armAlarm(time: number | null): void {
    clearTimeout(this.alarmTimer);
    if (time === null) return;
    this.alarmTimer = setTimeout(() => {
      this.alarmTimer = undefined;
      this.track(
        this.run(async ({ object, db }) => {
          db.exec('DELETE FROM _cf_ALARM WHERE id = 1');
          if (typeof object.alarm === 'function') await object.alarm();
        }),
      );
    }, Math.max(0, time - this.deps.now()));
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.active > 0 || this.connections > 0 || this.background.size > 0 || !this.live) return;
    // A job or alarm due soon keeps the instance awake; otherwise it is evicted when idle.
    if (this.jobTimer || this.alarmTimer) return;
    this.idleTimer = setTimeout(() => void this.evict(), this.deps.idleMs);
    this.idleTimer.unref();
  }

  /**
   * Forgets an instance whose journal write failed, without a snapshot (its memory is ahead of the
   * disk): the next request reopens it from what is durable.
   */
  private dropBroken(): void {
    const live = this.live;
    if (!live) return;
    this.live = undefined;
    this.clearTimers();
    this.deps.logger.error(`${this.name}: a journal write failed; closed, it reopens from disk on the next request`);
    void this.retire(live, { snapshot: false });
    this.deps.onEvict?.(this.name);
  }

  /** Stops the timers that would run this instance again: idle eviction, jobs, the alarm. */
  private clearTimers(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.jobTimer);
    clearTimeout(this.alarmTimer);
    this.jobTimer = this.alarmTimer = undefined;
  }

  /** Closes the database (with a snapshot) and forgets the object; the next request wakes it. */
  async evict(): Promise<void> {
    const live = this.live;
    if (!live || this.active > 0 || this.connections > 0) return;
    this.live = undefined;
    this.clearTimers();
    await this.retire(live, { snapshot: true });
    this.deps.onEvict?.(this.name);
  }

  /** Closes a database no longer live; failures are logged (its journal holds what is durable). */
  private retire(live: Promise<Live>, options: { snapshot: boolean }): Promise<void> {
    const closed = live
      .then(({ db, release }) => db.close(options).finally(() => release?.()))
      .catch((error: unknown) => this.deps.logger.error(`${this.name}: closing: ${(error as Error)?.message ?? String(error)}`));
    const all = Promise.all([this.closing, closed]);
    this.closing = all;
    void all.then(() => {
      if (this.closing === all) this.closing = undefined;
    });
    return closed;
  }

  /**
   * Takes no more work, lets requests already running finish (up to `drainMs`), drains background
   * work and closes; used at shutdown, on reload and before deleting the instance.
   */
  async shutdown(drainMs = 10_000): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    if (this.active > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise<void>((resolve) => (this.onDrained = resolve)), new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)))]);
      clearTimeout(timer);
      if (this.active > 0) this.deps.logger.warn(`${this.name}: closed with ${this.active} request(s) still running after ${drainMs} ms`);
    }
    // 1012 Service Restart: the agents client reconnects, to the new build on a reload.
    for (const socket of this.sockets) socket.close(1012, 'Service Restart');
    this.sockets.clear();
    // Requests that finished during the drain may have armed them again.
    this.clearTimers();
    await Promise.allSettled([...this.background]);
    const live = this.live;
    this.live = undefined;
    if (live) await this.retire(live, { snapshot: true });
    await this.closing;
  }
}
