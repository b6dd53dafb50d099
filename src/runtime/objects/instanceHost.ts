/**
 * One live Durable Object instance: woken from disk on first use (snapshot + journal), `onStart`
 * before the first request, every reply behind the output gate, alarms and agent jobs on timers,
 * and evicted after a quiet spell with no connections (the next request wakes it again).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withDeadline, type TimerHandle, type Timers } from '../../core/timers';
import { AlarmScheduler } from './alarms';
import { HibernatableSockets } from './hibernation';
import { webSocketOf, type WorkerWebSocket } from './webSocket';
import { LIFECYCLE_PROPS_HEADER, decodeLifecycleProps, takeLifecycleProps } from '../../core/contract/lifecycleProps';
import { hooksOf, takesConnections, type HostedConnection, type Socket } from './hosted';
import { InstanceClosedError, StorageWriteError } from '../errors';
import { DurableDatabase } from '../storage/durableDatabase';
import { DurableObject, DurableObjectState, type DurableObjectId, type InstanceServices } from './durableObject';
import { OutputGate } from './outputGate';
import { bodyReadsWait, InputGate } from './inputGate';
import { writePrivate } from '../../core/privateFiles';
import type { InstanceSummary } from '../../core/contract/instances';
import { camelCaseToKebabCase } from '../../core/contract/agentsProtocol';
import { provideInstanceNotices } from '../../core/contract/notes';
import type { Platform } from '../platform';
import type { Sleeper } from '../memoryBudget';

export type DurableObjectClass = new (ctx: DurableObjectState, env: never) => object;

/** What every host of one namespace shares: the platform, the binding, and the class it hosts. */
export interface HostedClass {
  readonly platform: Platform;
  /** The binding name, as in the wrangler config (`WEBHOOK_AGENT`). */
  readonly binding: string;
  readonly className: string;
  readonly cls: DurableObjectClass;
  readonly env: () => unknown;
}

/** What the runtime calls on an instance: `fetch`, `alarm`, and any method through RPC. */
type HostedObject = Record<string, unknown> & { fetch?: (request: Request) => Promise<Response>; alarm?: (info: unknown) => Promise<void> };

/** A file beside an instance's data saying it has an alarm: a restart wakes the instance for it. */
export const ALARM_MARKER = 'alarm';

interface Live {
  readonly db: DurableDatabase;
  readonly object: HostedObject;
  readonly gate: OutputGate;
  /** Lets what runs code on the object in one at a time; a reset object's gate goes with it. */
  readonly input: InputGate;
  readonly ctx: DurableObjectState;
  /** Rejects when the object is reset: every event still running on it fails with the reason. */
  readonly broken: Promise<never>;
  /**
   * The events running on it, each by its reject: a reset rejects them. Not a race against
   * `broken`, which settles only on a reset: every race would leave a reaction on it holding the
   * event's result, and a healthy object would keep every response it ever gave until evicted.
   */
  readonly running: Set<(error: unknown) => void>;
  /** Lets go of the database's heap, once it is closed. */
  readonly release: (() => void) | undefined;
}

/** `work`'s outcome, or the reset's error as soon as the object is reset while `work` runs. */
function failedByReset<T>(live: Live, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    live.running.add(reject);
    void work.then(resolve, reject).finally(() => live.running.delete(reject));
  });
}

/** workerd's limit on a `blockConcurrencyWhile` callback (io-context.h). */
export const BLOCK_CONCURRENCY_TIMEOUT_MS = 30_000;
export const BLOCK_CONCURRENCY_TIMEOUT_MESSAGE = 'A call to blockConcurrencyWhile() in a Durable Object waited for too long. The call was canceled and the Durable Object was reset.';
/** workerd's error when a hibernatable WebSocket handler outruns its event timeout (global-scope.c++). */
export const EVENT_TIMEOUT_MESSAGE = 'Actor exceeded event execution time and was disconnected.';

/** Symbol on a Response that carries a WebSocket upgrade for the server to complete. */
export const UPGRADE = Symbol.for('hookbench.upgrade');

export type UpgradeResponse = Response & { [UPGRADE]: (socket: Socket) => SocketHandlers };

export interface SocketHandlers {
  message(data: string | Uint8Array): void;
  close(code: number, reason: string): void;
  /** A transport error (not a plain disconnect): reported instead of the close that follows. */
  error?(error: Error): void;
  /**
   * The peer's close frame is answered by the worker's own `ws.close()` (workerd's hibernatable
   * WebSockets), not echoed by the transport at once: the receiver reports the close when the
   * frame arrives and sends the worker's answer.
   */
  readonly answersClose?: boolean;
}

/**
 * What an awake instance holds beside its database's file and page cache, for the memory budget:
 * SQLite's connection (schema, compiled statements, lookaside: 150–180 KiB of wasm heap) and about
 * 140 KiB of process heap (docs/performance.md, "Memory", "Where it goes").
 */
export const INSTANCE_OVERHEAD_BYTES = 320 * 1024;

export class InstanceHost implements Sleeper {
  private live: Promise<Live> | undefined;
  /** The live object once woken (for the memory budget, which asks without waiting). */
  private awake: Live | undefined;
  private active = 0;
  private connections = 0;
  /**
   * When the instance may be evicted for being idle, 0 while something keeps it awake. Each event
   * moves it on; the one idle timer, once due, waits again for what is left (see armIdle).
   */
  private idleAt = 0;
  private idleTimer: TimerHandle | undefined;
  private readonly idleDue = (): void => this.evictIfIdle();
  private jobTimer: TimerHandle | undefined;
  /** When the armed job timer fires (ms since epoch). */
  private jobDueAt: number | undefined;
  /** Waiting for the instance to have nothing to do now (whenQuiet). */
  private quietWaiters: (() => void)[] = [];
  private readonly alarms: AlarmScheduler;
  private readonly platform: Platform;
  private readonly timers: Timers;
  /** Hibernatable WebSockets: they outlive the object, which may be evicted while they stay open. */
  private readonly hibernatable: HibernatableSockets;
  private background = new Set<Promise<unknown>>();
  /** Closes still running: waking again waits for them, so two databases never share the folder. */
  private closing: Promise<unknown> | undefined;
  /** Set by shutdown: this host takes no more work (a new host serves the instance). */
  private stopped = false;
  private onDrained: (() => void) | undefined;
  /** Open WebSockets, closed with 1012 when the host shuts down so clients reconnect to the new one. */
  private readonly sockets = new Set<Socket>();
  /** How each live object is failed when it is reset, and the objects already reset. */
  private readonly failures = new WeakMap<Live, (error: unknown) => void>();
  private readonly resets = new WeakSet<Live>();

  constructor(
    readonly name: string,
    readonly id: DurableObjectId,
    private readonly hosted: HostedClass,
    /** The instance's folder. */
    readonly directory: string,
  ) {
    this.platform = hosted.platform;
    const timers = hosted.platform.timers;
    this.timers = timers;
    this.alarms = new AlarmScheduler(timers, {
      stored: () => this.run(async ({ ctx }) => ctx.storage.storedAlarm()),
      run: (info) =>
        this.run(async ({ object }) => {
          if (typeof object.alarm === 'function') await object.alarm(info);
        }),
      clear: (time) =>
        this.run(async ({ db }) => {
          db.exec('DELETE FROM _cf_ALARM WHERE id = 1 AND time = ?', [time]);
        }),
      onError: (error, info, willRetry) => {
        this.platform.logger.error(`${this.name}: alarm() failed (retry ${info.retryCount})${willRetry ? ', retrying' : ', giving up after 6 retries'}: ${(error as Error)?.stack ?? String(error)}`);
        this.platform.handlerErrors.fire({ handler: 'alarm', target: `${this.hosted.binding}/${this.name}`, error });
      },
      track: (promise) => this.track(promise),
    });
    this.hibernatable = new HibernatableSockets(
      {
        message: (ws, data) => this.hibernationEvent('webSocketMessage', () => [ws(), data]),
        close: (ws, code, reason, wasClean) => this.hibernationEvent('webSocketClose', () => [ws(), code, reason, wasClean]),
        error: (ws, error) => this.hibernationEvent('webSocketError', () => [ws(), error]),
      },
      () => timers.now(),
    );
  }

  /** Wakes the instance (if hibernated) and calls a hibernation handler on it. */
  /** An event timeout (`setHibernatableWebSocketEventTimeout`) resets an object whose handler outruns it. */
  private hibernationEvent(method: string, args: () => unknown[]): void {
    this.track(
      this.run(async (live) => {
        const handler = live.object[method];
        if (typeof handler !== 'function') return;
        const handled = Promise.resolve((handler as (...a: unknown[]) => unknown).apply(live.object, args()));
        const limit = this.hibernatable.eventTimeout;
        if (!limit) return void (await handled);
        let timer: { cancel(): void } | undefined;
        const timeout = new Promise<never>((_resolve, reject) => {
          timer = this.timers.after(limit, () => {
            const error = new Error(EVENT_TIMEOUT_MESSAGE);
            this.reset(live, error);
            reject(error);
          }, { unref: true });
        });
        try {
          await Promise.race([handled, timeout]);
        } finally {
          timer?.cancel();
        }
      }).finally(() => this.armIdle()),
    );
  }

  get isAwake(): boolean {
    return this.live !== undefined;
  }

  private wake(): Promise<Live> {
    this.live ??= (async () => {
      // A closing snapshot deletes the journal generations it covers: opening before it finishes
      // would append to a generation about to be deleted.
      while (this.closing) await this.closing;
      // With heaps (sqlHeaps.ts), the database lives in a heap that is dropped once its last database closes.
      const lease = this.platform.heaps?.acquire();
      let db: DurableDatabase;
      try {
        db = await DurableDatabase.open({ sql: lease ? await lease.sql : this.platform.sql, dir: this.directory, snapshotAfterBytes: this.platform.limits.snapshotAfterBytes, log: this.platform.log });
      } catch (error) {
        lease?.release();
        throw error;
      }
      // The heap shares a page-cache budget among its databases (pageCache.ts).
      lease?.followCacheSize((kib) => db.setCacheSize(kib));
      // The folder name is an encoding (hashed for long names): keep the real name beside it.
      const nameFile = path.join(this.directory, 'name');
      const created = !fs.existsSync(nameFile);
      if (created) writePrivate(nameFile, this.name);
      if (db.droppedBytes > 0) this.platform.logger.warn(`${this.name}: dropped a torn journal tail of ${db.droppedBytes} bytes (never acknowledged)`);
      let rejectBroken!: (error: unknown) => void;
      const broken = new Promise<never>((_resolve, reject) => (rejectBroken = reject));
      broken.catch(() => undefined);
      const running = new Set<(error: unknown) => void>();
      const fail = (error: unknown): void => {
        rejectBroken(error);
        for (const reject of running) reject(error);
        running.clear();
      };
      const gate = new OutputGate(db, (error) => this.platform.logger.error(`${this.name}: ${(error as Error).message}`));
      const input = new InputGate();
      const services: InstanceServices = {
        waitUntil: (promise) => this.track(promise),
        onAlarmChanged: (time) => this.alarmChanged(time),
        alarmView: (stored) => this.alarms.view(stored),
        sockets: this.hibernatable,
        critical: (fn) => {
          const section = input.openSection();
          const run = section.inside(fn);
          run.then(section.end, section.end);
          return run;
        },
        blockWhile: (fn) => this.blockWhile(live, fn),
        onJobsChanged: (time) => this.armJobs(time),
        gate: (send) => gate.send(send),
        timers: this.timers,
        onStateChanged: (state) => this.platform.instanceEvents.fire({ kind: 'state', namespace: this.hosted.binding, name: this.name, state }),
      };
      const ctx = new DurableObjectState(this.id, db, services);
      provideInstanceNotices(ctx, { eventStored: (event) => this.platform.instanceEvents.fire({ kind: 'event', namespace: this.hosted.binding, name: this.name, event }) });
      // The constructor may call blockConcurrencyWhile: `live` is complete before its callback runs.
      const live = { db, object: undefined as unknown as HostedObject, gate, input, ctx, broken, running, release: lease?.release } as Live & { object: HostedObject };
      this.failures.set(live, fail);
      live.object = new this.hosted.cls(ctx, this.hosted.env() as never) as HostedObject;
      const alarm = ctx.storage.storedAlarm();
      if (alarm !== null && !this.resets.has(live)) this.alarms.changed(alarm);
      else fs.rmSync(path.join(this.directory, ALARM_MARKER), { force: true });
      if (created) this.platform.instanceEvents.fire({ kind: 'created', namespace: this.hosted.binding, name: this.name, instance: this.summary(true) });
      this.platform.instanceEvents.fire({ kind: 'woken', namespace: this.hosted.binding, name: this.name, instance: this.summary(true) });
      return live;
    })();
    this.live.catch(() => this.dropLive());
    return this.live;
  }

  /** Runs `fn` on the woken instance, then holds its result until the writes it made are durable. */
  /** `props`: what `routeAgentRequest({ props })` sent, for an Agent's first `onStart` of this wake. */
  private async run<T>(fn: (live: Live) => Promise<T>, props?: () => unknown): Promise<T> {
    if (this.stopped) throw new InstanceClosedError(this.name);
    this.active++;
    this.idleAt = 0;
    try {
      const live = await this.wake();
      if (!this.resets.has(live)) {
        this.awake = live;
        this.platform.memory?.used(this);
      }
      // A reset (blockConcurrencyWhile failed, an event timed out) fails every event on the object.
      return await failedByReset(live, this.runOn(live, fn, props));
    } catch (error) {
      if (error instanceof StorageWriteError) this.dropBroken();
      throw error;
    } finally {
      this.active--;
      if (this.active === 0) this.onDrained?.();
      this.armIdle();
    }
  }

  private async runOn<T>(live: Live, fn: (live: Live) => Promise<T>, props?: () => unknown): Promise<T> {
    await live.input.enter();
    if (this.resets.has(live)) return live.broken;
    return live.input.run(async () => {
      // A plain Durable Object takes no extra turn here: its writes commit with the same timing as on workerd.
      const hooks = hooksOf(live.object);
      if (hooks) await hooks.start(props?.());
      const before = live.db.writeCount;
      const result = await fn(live);
      if (this.resets.has(live)) return live.broken;
      // The output gate: hold the result until what it wrote is durable. Code that wrote nothing
      // (a read, getAgentByName's start) must not wait for other requests' commits.
      if (live.db.writeCount > before || live.db.writeCount > live.db.durableWriteCount) await live.db.commit();
      return result;
    });
  }

  /**
   * `blockConcurrencyWhile` as workerd: other events wait; a throw, or a callback still running
   * after 30 s, resets the object. The caller never resumes then: the event that called it, and
   * those waiting, fail with the error, and the next event gets a new object.
   */
  private blockWhile<T>(live: Live, fn: () => Promise<T> | T): Promise<T> {
    let timer: { cancel(): void } | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = this.timers.after(BLOCK_CONCURRENCY_TIMEOUT_MS, () => reject(new Error(BLOCK_CONCURRENCY_TIMEOUT_MESSAGE)), { unref: true });
    });
    const section = live.input.openSection();
    const guarded = Promise.race([Promise.resolve().then(() => section.inside(fn)), timeout]).finally(() => {
      timer?.cancel();
      section.end();
    });
    return guarded.catch((error: unknown) => {
      this.reset(live, error);
      return new Promise<never>(() => undefined);
    });
  }

  /** Drops a failed object without committing its pending writes; its sockets stay connected. */
  private reset(live: Live, error: unknown): void {
    if (this.resets.has(live)) return;
    this.resets.add(live);
    this.failures.get(live)?.(error);
    this.platform.logger.error(`${this.name}: reset: ${(error as Error)?.message ?? String(error)}`);
    void this.live?.then((current) => {
      if (current !== live) return;
      this.dropLive();
      this.clearTimers();
      this.hibernatable.hibernate();
      void this.retire(Promise.resolve(live), { snapshot: false, discard: true });
      this.evicted();
    });
  }

  /** The instance as the live feed shows it. */
  private summary(awake: boolean): InstanceSummary {
    const { binding, className } = this.hosted;
    return { namespace: binding, agent: camelCaseToKebabCase(binding), className, name: this.name, awake, connections: awake ? this.connections : 0 };
  }

  private evicted(): void {
    this.platform.instanceEvents.fire({ kind: 'evicted', namespace: this.hosted.binding, name: this.name, instance: this.summary(false) });
  }

  /** Runs `fn` against the woken instance's database (the admin API's inspector). */
  inspect<T>(fn: (db: DurableDatabase, object: unknown) => T): Promise<T> {
    return this.run(async ({ db, object }) => fn(db, object));
  }

  /**
   * Resolves once nothing runs on the instance and nothing is due at once: no event, no background
   * work (`waitUntil`), no job due now. `hookbench chaos` reads what a run left only then
   * (docs/chaos.md, "How a run goes"); jobs and alarms set for later do not count.
   */
  whenQuiet(): Promise<void> {
    if (this.isQuiet()) return Promise.resolve();
    return new Promise((resolve) => this.quietWaiters.push(resolve));
  }

  private isQuiet(): boolean {
    return this.active === 0 && this.background.size === 0 && (this.jobDueAt === undefined || this.jobDueAt > this.timers.now());
  }

  get connectionCount(): number {
    return this.connections;
  }

  async ensureStarted(props?: unknown): Promise<void> {
    await this.run(async () => undefined, () => props);
  }

  fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket' && takesConnections(this.hosted.cls)) return Promise.resolve(this.upgrade(request));
    // An object with hooks (an Agent) takes routeAgentRequest's props from their header and never
    // sees it; any other Durable Object gets the request as it came.
    const header = request.headers.get(LIFECYCLE_PROPS_HEADER);
    return this.run(async ({ object }) => {
      if (typeof object.fetch !== 'function') throw new Error('Handler does not export a fetch() function.');
      const response = (await object.fetch(bodyReadsWait(header && hooksOf(object) ? takeLifecycleProps(request).request : request))) as Response;
      const client = webSocketOf(response);
      if (client?.peer && !client.peer.hibernation) this.holdOpen(client.peer);
      return response;
    }, header ? () => decodeLifecycleProps(header) : undefined);
  }

  /** A WebSocket the object accepted with `accept()`: the instance stays awake while it is open. */
  private holdOpen(server: WorkerWebSocket): void {
    this.connections++;
    server.addEventListener('close', () => {
      this.connections--;
      this.armIdle();
    });
  }

  /** A call through a stub: any method of the object (DO RPC), awaited, behind the output gate. */
  rpc(method: string, args: unknown[]): Promise<unknown> {
    return this.run(async ({ object }) => {
      if (!(object instanceof DurableObject)) {
        throw new TypeError('The receiving Durable Object does not support RPC, because its class was not declared with `extends DurableObject`.');
      }
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
    this.connections++;
    this.sockets.add(socket);
    this.idleAt = 0;
    const header = request.headers.get(LIFECYCLE_PROPS_HEADER);
    const ready: Promise<HostedConnection> = this.run(async ({ object, gate }) => {
      const hooks = hooksOf(object);
      if (!hooks) throw new Error('WebSocket connections need an Agent');
      return hooks.connect(socket, header ? takeLifecycleProps(request).request : request, (send) => gate.send(send));
    }, header ? () => decodeLifecycleProps(header) : undefined);
    ready.catch((error: unknown) => {
      this.platform.logger.error(`${this.name}: connect failed: ${(error as Error).message}`);
      socket.close(1011, 'Internal error');
    });
    return {
      // The SDK accepts its connections with ctx.acceptWebSocket: the agent's own close answers.
      answersClose: true,
      message: (data) => {
        void ready
          .then((connection) => this.run(() => connection.message(data)))
          .catch((error: unknown) => this.platform.logger.error(`${this.name}: ${(error as Error).stack ?? String(error)}`));
      },
      close: (code, reason) => {
        this.connections--;
        this.sockets.delete(socket);
        void ready
          .then((connection) => this.run(() => connection.close(code, reason, code !== 1006)))
          .catch(() => undefined)
          .finally(() => this.armIdle());
      },
    };
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error: unknown) => this.platform.logger.error(`${this.name}: waitUntil: ${(error as Error)?.stack ?? String(error)}`));
    this.background.add(tracked);
    void tracked.finally(() => {
      this.background.delete(tracked);
      this.armIdle();
    });
  }

  private armJobs(time: number | undefined): void {
    this.jobTimer?.cancel();
    this.jobTimer = undefined;
    this.jobDueAt = time;
    if (time === undefined) return;
    this.jobTimer = this.timers.after(Math.max(0, time - this.timers.now()), () => {
      this.jobTimer = undefined;
      this.jobDueAt = undefined;
      this.track(this.run(async ({ object }) => hooksOf(object)?.runJobs()));
    });
  }

  private alarmChanged(time: number | null): void {
    // The marker is written before the row can be durable; a stale one only costs a wake.
    if (time !== null && !fs.existsSync(path.join(this.directory, ALARM_MARKER))) writePrivate(path.join(this.directory, ALARM_MARKER), '');
    this.alarms.changed(time);
  }


  /**
   * Starts the quiet spell after which the instance is evicted. Called after every event: rather
   * than a timer cancelled and set again each time, the one timer stays and the spell's end moves,
   * so an instance busy with requests costs no timer per request.
   */
  private armIdle(): void {
    if (this.quietWaiters.length > 0 && this.isQuiet()) for (const quiet of this.quietWaiters.splice(0)) quiet();
    this.idleAt = 0;
    if (this.active > 0 || this.connections > 0 || this.background.size > 0 || !this.live) return;
    this.platform.memory?.idle(this);
    // A job or alarm due soon keeps the instance awake; otherwise it is evicted when idle.
    if (this.jobTimer || this.alarms.armed) return;
    const idleMs = this.platform.limits.idleMs;
    // An endless idle time never evicts: there is nothing to wait for.
    if (idleMs === Number.POSITIVE_INFINITY) return;
    this.idleAt = this.timers.now() + idleMs;
    this.idleTimer ??= this.timers.after(idleMs, this.idleDue, { unref: true });
  }

  /** The idle timer is due: evicts, unless the instance was busy since (it waits again for the rest of its spell). */
  private evictIfIdle(): void {
    this.idleTimer = undefined;
    if (this.idleAt === 0) return;
    const left = this.idleAt - this.timers.now();
    if (left > 0) this.idleTimer = this.timers.after(left, this.idleDue, { unref: true });
    else void this.evict();
  }

  /**
   * Forgets an instance whose journal write failed, without a snapshot (its memory is ahead of the
   * disk): the next request reopens it from what is durable.
   */
  private dropBroken(): void {
    const live = this.live;
    if (!live) return;
    this.dropLive();
    this.clearTimers();
    this.platform.logger.error(`${this.name}: a journal write failed; closed, it reopens from disk on the next request`);
    void this.retire(live, { snapshot: false });
    this.evicted();
  }

  /** Stops the timers that would run this instance again: idle eviction, jobs, the alarm. */
  private clearTimers(): void {
    this.idleAt = 0;
    this.idleTimer?.cancel();
    this.idleTimer = undefined;
    this.jobTimer?.cancel();
    this.jobTimer = undefined;
    this.jobDueAt = undefined;
    this.alarms.stop();
  }

  /**
   * Closes the database (with a snapshot, unless `snapshot: false`: the journal is durable and is
   * replayed at the next wake) and forgets the object; the next request wakes it.
   */
  async evict({ snapshot = true } = {}): Promise<void> {
    const live = this.live;
    if (!live || this.active > 0 || this.connections > 0) return;
    this.dropLive();
    this.clearTimers();
    this.hibernatable.hibernate();
    await this.retire(live, { snapshot });
    this.evicted();
  }

  /** Forgets the live object (its database is closed by whoever calls this); the memory budget no longer counts it. */
  private dropLive(): void {
    this.live = undefined;
    this.awake = undefined;
    this.platform.memory?.asleep(this);
  }

  /** What the instance holds in memory, for the memory budget (memoryBudget.ts): its database, and the rest (INSTANCE_OVERHEAD_BYTES). */
  memoryBytes(): number {
    return this.awake && this.live ? this.awake.db.memoryBytes() + INSTANCE_OVERHEAD_BYTES : 0;
  }

  /**
   * Whether the memory budget may put the instance to sleep now: awake, with nothing running, queued
   * at its input gate or in a critical section, nothing in the background (waitUntil, a hibernation
   * event), no write waiting to be durable (so no output held), no WebSocket it holds open (an
   * Agent's connections, an accepted socket), no job or alarm armed (nothing would wake it for them).
   * Hibernatable WebSockets do not keep it awake: they stay open while it sleeps, as on hibernation.
   */
  canSleep(): boolean {
    const live = this.awake;
    if (!live || !this.live || this.stopped || this.active > 0 || this.connections > 0 || this.background.size > 0) return false;
    if (this.jobTimer || this.alarms.armed || !live.input.quiet) return false;
    return live.db.writeCount === live.db.durableWriteCount;
  }

  /** For the memory budget, when it may not sleep: whether nothing but events and background work keeps it awake (they end). */
  settling(): boolean {
    return !(this.connections > 0 || this.jobTimer || this.alarms.armed);
  }

  /**
   * Puts the instance to sleep for the memory budget: as an idle eviction, with a snapshot only
   * when it makes the next wake cheaper (an instance put to sleep under load wakes again soon).
   */
  sleep(): void {
    void this.evict({ snapshot: this.awake?.db.snapshotPaysOff ?? true });
  }

  /** Closes a database no longer live; failures are logged (its journal holds what is durable). */
  private retire(live: Promise<Live>, options: { snapshot: boolean; discard?: boolean }): Promise<void> {
    const closed = live
      .then(({ db, release }) => (options.discard ? db.discard() : db.close(options)).finally(() => release?.()))
      .catch((error: unknown) => this.platform.logger.error(`${this.name}: closing: ${(error as Error)?.message ?? String(error)}`));
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
    this.alarms.close();
    this.clearTimers();
    const deadline = Date.now() + drainMs;
    if (this.active > 0) {
      await withDeadline(new Promise<void>((resolve) => (this.onDrained = resolve)), drainMs);
      if (this.active > 0) this.platform.logger.warn(`${this.name}: closed with ${this.active} request(s) still running after ${drainMs} ms`);
    }
    // 1012 Service Restart: the agents client reconnects, to the new build on a reload.
    for (const socket of this.sockets) socket.close(1012, 'Service Restart');
    this.sockets.clear();
    this.hibernatable.closeAll(1012, 'Service Restart');
    // Requests that finished during the drain may have armed them again.
    this.clearTimers();
    // Background work (waitUntil, hibernation events) gets what is left of the drain: a handler
    // that never settles must not hold a reload or a stop forever.
    const settled = await withDeadline(Promise.allSettled([...this.background]).then(() => true), Math.max(0, deadline - Date.now()));
    if (!settled) this.platform.logger.warn(`${this.name}: closed with ${this.background.size} background task(s) still running after ${drainMs} ms`);
    const live = this.live;
    this.dropLive();
    if (live) await this.retire(live, { snapshot: true });
    await this.closing;
  }
}
