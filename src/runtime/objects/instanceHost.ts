/**
 * One Durable Object instance, composed of one piece per job: its folder (opening and closing its
 * database, instanceFolder.ts), each wake's object behind its input and output gates
 * (liveInstance.ts), what runs on it (instanceActivity.ts), the WebSockets it holds open
 * (connections.ts) and the hibernatable ones that outlive it (hibernation.ts, with their event
 * timeout in eventTimeout.ts), its timers — idle eviction (idleTimer.ts), the agent's jobs
 * (jobTimer.ts), the alarm (alarms.ts) — the memory budget's view of it (instanceSleeper.ts) and
 * the instance events it fires (instanceReporter.ts). The host runs each event: it wakes the
 * instance on first use (snapshot + journal, `onStart` before the first event), holds every reply
 * behind the output gate, and evicts it after a quiet spell with no connections (the next event
 * wakes it again), or when the memory budget puts it to sleep.
 */
import { withDeadline, type Timers } from '../../core/timers';
import { LIFECYCLE_PROPS_HEADER, decodeLifecycleProps, takeLifecycleProps } from '../../core/contract/lifecycleProps';
import { provideInstanceNotices } from '../../core/contract/notes';
import { InstanceClosedError, StorageWriteError } from '../errors';
import type { DurableDatabase } from '../storage/durableDatabase';
import type { Platform } from '../platform';
import { AlarmScheduler } from './alarms';
import { InstanceConnections } from './connections';
import { DurableObject, DurableObjectState, type DurableObjectId, type InstanceServices } from './durableObject';
import { withEventTimeout } from './eventTimeout';
import { HibernatableSockets } from './hibernation';
import { hooksOf, takesConnections } from './hosted';
import { IdleTimer } from './idleTimer';
import { bodyReadsWait } from './inputGate';
import { InstanceActivity } from './instanceActivity';
import { InstanceFolder } from './instanceFolder';
import { InstanceReporter } from './instanceReporter';
import { InstanceSleeper } from './instanceSleeper';
import { JobTimer } from './jobTimer';
import { LiveInstance, type HostedObject } from './liveInstance';
import { webSocketOf } from './webSocket';

export { BLOCK_CONCURRENCY_TIMEOUT_MESSAGE } from './liveInstance';
export { EVENT_TIMEOUT_MESSAGE } from './eventTimeout';

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

export class InstanceHost {
  private live: Promise<LiveInstance> | undefined;
  /** Set by shutdown: this host takes no more work (a new host serves the instance). */
  private stopped = false;
  private readonly platform: Platform;
  private readonly timers: Timers;
  private readonly folder: InstanceFolder;
  private readonly reporter: InstanceReporter;
  private readonly activity: InstanceActivity;
  private readonly connections: InstanceConnections;
  /** Hibernatable WebSockets: they outlive the object, which may be evicted while they stay open. */
  private readonly hibernatable: HibernatableSockets;
  private readonly idle: IdleTimer;
  private readonly jobs: JobTimer;
  private readonly alarms: AlarmScheduler;
  private readonly sleeper: InstanceSleeper;

  constructor(
    readonly name: string,
    readonly id: DurableObjectId,
    private readonly hosted: HostedClass,
    /** The instance's folder. */
    directory: string,
  ) {
    const platform = hosted.platform;
    const timers = platform.timers;
    this.platform = platform;
    this.timers = timers;
    this.folder = new InstanceFolder(platform, name, directory);
    this.reporter = new InstanceReporter(platform.instanceEvents, hosted.binding, hosted.className, name);
    this.activity = new InstanceActivity(
      (error) => platform.logger.error(`${this.name}: waitUntil: ${(error as Error)?.stack ?? String(error)}`),
      () => this.armIdle(),
    );
    this.connections = new InstanceConnections({
      name,
      logger: platform.logger,
      run: (fn, props) => this.run(fn, props),
      busy: () => this.idle.hold(),
      idle: () => this.armIdle(),
    });
    this.hibernatable = new HibernatableSockets(
      {
        message: (ws, data) => this.hibernationEvent('webSocketMessage', () => [ws(), data]),
        close: (ws, code, reason, wasClean) => this.hibernationEvent('webSocketClose', () => [ws(), code, reason, wasClean]),
        error: (ws, error) => this.hibernationEvent('webSocketError', () => [ws(), error]),
      },
      () => timers.now(),
    );
    this.idle = new IdleTimer(timers, () => void this.evict());
    this.jobs = new JobTimer(timers, () => this.activity.track(this.run(async ({ object }) => hooksOf(object)?.runJobs())));
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
        platform.logger.error(
          `${this.name}: alarm() failed (retry ${info.retryCount})${willRetry ? ', retrying' : ', giving up after 6 retries'}: ${(error as Error)?.stack ?? String(error)}`,
        );
        platform.handlerErrors.fire({ handler: 'alarm', target: `${hosted.binding}/${this.name}`, error });
      },
      track: (promise) => this.activity.track(promise),
    });
    this.sleeper = new InstanceSleeper(platform.memory, {
      isAwake: () => this.live !== undefined,
      isStopped: () => this.stopped,
      isWorking: () => !this.activity.settled,
      isHolding: () => this.connections.count > 0 || this.jobs.armed || this.alarms.armed,
      evict: (options) => this.evict(options),
    });
  }

  get isAwake(): boolean {
    return this.live !== undefined;
  }

  get connectionCount(): number {
    return this.connections.count;
  }

  async ensureStarted(props?: unknown): Promise<void> {
    await this.run(
      async () => undefined,
      () => props,
    );
  }

  fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket' && takesConnections(this.hosted.cls))
      return Promise.resolve(this.connections.upgrade(request));
    // An object with hooks (an Agent) takes routeAgentRequest's props from their header and never
    // sees it; any other Durable Object gets the request as it came.
    const header = request.headers.get(LIFECYCLE_PROPS_HEADER);
    return this.run(
      async ({ object }) => {
        if (typeof object.fetch !== 'function') throw new Error('Handler does not export a fetch() function.');
        const response = (await object.fetch(bodyReadsWait(header && hooksOf(object) ? takeLifecycleProps(request).request : request))) as Response;
        const client = webSocketOf(response);
        if (client?.peer && !client.peer.hibernation) this.connections.holdOpen(client.peer);
        return response;
      },
      header ? () => decodeLifecycleProps(header) : undefined,
    );
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
    return this.activity.whenQuiet(this.isQuiet());
  }

  private isQuiet(): boolean {
    return this.activity.settled && !this.jobs.dueNow();
  }

  /**
   * Runs `fn` as an event on the woken instance (liveInstance.ts: its input gate, then its result
   * held until the writes it made are durable). `props`: what `routeAgentRequest({ props })` sent,
   * for an Agent's first `onStart` of this wake.
   */
  private async run<T>(fn: (live: LiveInstance) => Promise<T>, props?: () => unknown): Promise<T> {
    if (this.stopped) throw new InstanceClosedError(this.name);
    this.activity.begin();
    this.idle.hold();
    try {
      const live = await this.wake();
      if (!live.isReset) this.sleeper.used(live);
      // A reset (blockConcurrencyWhile failed, an event timed out) fails every event on the object.
      return await live.settle(live.run(fn, props));
    } catch (error) {
      if (error instanceof StorageWriteError) this.dropBroken();
      throw error;
    } finally {
      this.activity.end();
      this.armIdle();
    }
  }

  private wake(): Promise<LiveInstance> {
    this.live ??= this.open();
    this.live.catch(() => this.dropLive());
    return this.live;
  }

  /** Opens the database and builds the object on it; `onStart` runs with the first event. */
  private async open(): Promise<LiveInstance> {
    const { db, release, created } = await this.folder.open();
    const live = new LiveInstance(
      db,
      release,
      this.timers,
      (error) => this.platform.logger.error(`${this.name}: ${(error as Error).message}`),
      (reset, error) => this.dropReset(reset, error),
    );
    const ctx = new DurableObjectState(this.id, db, this.services(live));
    provideInstanceNotices(ctx, this.reporter);
    // The constructor may call blockConcurrencyWhile: `live` is complete but for the object before its callback runs.
    live.ctx = ctx;
    live.object = new this.hosted.cls(ctx, this.hosted.env() as never) as HostedObject;
    const alarm = ctx.storage.storedAlarm();
    if (alarm !== null && !live.isReset) this.alarms.changed(alarm);
    else this.folder.noAlarm();
    if (created) this.reporter.created(this.connections.count);
    this.reporter.woken(this.connections.count);
    return live;
  }

  /** What the object's `ctx` asks of the runtime. */
  private services(live: LiveInstance): InstanceServices {
    const gate = live.gate;
    return {
      waitUntil: (promise) => this.activity.track(promise),
      onAlarmChanged: (time) => {
        this.folder.alarmSet(time);
        this.alarms.changed(time);
      },
      alarmView: (stored) => this.alarms.view(stored),
      sockets: this.hibernatable,
      critical: (fn) => live.critical(fn),
      blockWhile: (fn) => live.blockWhile(fn),
      onJobsChanged: (time) => this.jobs.arm(time),
      gate: (send) => gate.send(send),
      timers: this.timers,
      onStateChanged: (state) => this.reporter.stateSet(state),
    };
  }

  /** Wakes the instance (if hibernated) and calls a hibernation handler on it, within its event timeout. */
  private hibernationEvent(method: string, args: () => unknown[]): void {
    this.activity.track(
      this.run(async (live) => {
        const handler = live.object[method];
        if (typeof handler !== 'function') return;
        const handled = Promise.resolve((handler as (...a: unknown[]) => unknown).apply(live.object, args()));
        await withEventTimeout(this.timers, this.hibernatable.eventTimeout, handled, (error) => live.reset(error));
      }).finally(() => this.armIdle()),
    );
  }

  /**
   * Called after every event: wakes whoever waits for quiet, and once nothing keeps the instance
   * awake, tells the memory budget and, unless a job or an alarm is due soon, starts the idle spell.
   */
  private armIdle(): void {
    if (this.activity.awaitingQuiet && this.isQuiet()) this.activity.quiet();
    this.idle.hold();
    if (!this.activity.settled || this.connections.count > 0 || !this.live) return;
    this.sleeper.idle();
    // A job or alarm due soon keeps the instance awake; otherwise it is evicted when idle.
    if (this.jobs.armed || this.alarms.armed) return;
    this.idle.start(this.platform.limits.idleMs);
  }

  /**
   * Closes the database (with a snapshot, unless `snapshot: false`: the journal is durable and is
   * replayed at the next wake) and forgets the object; the next request wakes it.
   */
  async evict({ snapshot = true } = {}): Promise<void> {
    const live = this.live;
    if (!live || this.activity.events > 0 || this.connections.count > 0) return;
    this.dropLive();
    this.stopTimers();
    this.hibernatable.hibernate();
    await this.folder.close(live, { snapshot });
    this.reporter.evicted();
  }

  /**
   * Forgets an instance whose journal write failed, without a snapshot (its memory is ahead of the
   * disk): the next request reopens it from what is durable.
   */
  private dropBroken(): void {
    const live = this.live;
    if (!live) return;
    this.dropLive();
    this.stopTimers();
    this.platform.logger.error(`${this.name}: a journal write failed; closed, it reopens from disk on the next request`);
    void this.folder.close(live, { snapshot: false });
    this.reporter.evicted();
  }

  /** Drops a reset object without committing its pending writes; its sockets stay connected. */
  private dropReset(live: LiveInstance, error: unknown): void {
    this.platform.logger.error(`${this.name}: reset: ${(error as Error)?.message ?? String(error)}`);
    void this.live?.then((current) => {
      if (current !== live) return;
      this.dropLive();
      this.stopTimers();
      this.hibernatable.hibernate();
      void this.folder.close(Promise.resolve(live), { snapshot: false, discard: true });
      this.reporter.evicted();
    });
  }

  /** Forgets the live object (its database is closed by whoever calls this); the memory budget no longer counts it. */
  private dropLive(): void {
    this.live = undefined;
    this.sleeper.asleep();
  }

  /** Stops the timers that would run this instance again: idle eviction, jobs, the alarm. */
  private stopTimers(): void {
    this.idle.stop();
    this.jobs.stop();
    this.alarms.stop();
  }

  /**
   * Takes no more work, lets requests already running finish (up to `drainMs`), drains background
   * work and closes; used at shutdown, on reload and before deleting the instance.
   */
  async shutdown(drainMs = 10_000): Promise<void> {
    this.stopped = true;
    this.alarms.close();
    this.stopTimers();
    const deadline = Date.now() + drainMs;
    if (this.activity.events > 0) {
      await withDeadline(this.activity.whenDrained(), drainMs);
      if (this.activity.events > 0) this.platform.logger.warn(`${this.name}: closed with ${this.activity.events} request(s) still running after ${drainMs} ms`);
    }
    this.connections.closeAll();
    this.hibernatable.closeAll(1012, 'Service Restart');
    // Requests that finished during the drain may have armed them again.
    this.stopTimers();
    // Background work (waitUntil, hibernation events) gets what is left of the drain: a handler
    // that never settles must not hold a reload or a stop forever.
    const settled = await withDeadline(
      this.activity.backgroundSettled().then(() => true),
      Math.max(0, deadline - Date.now()),
    );
    if (!settled) this.platform.logger.warn(`${this.name}: closed with ${this.activity.backgroundCount} background task(s) still running after ${drainMs} ms`);
    const live = this.live;
    this.dropLive();
    if (live) await this.folder.close(live, { snapshot: true });
    await this.folder.closed();
  }
}
