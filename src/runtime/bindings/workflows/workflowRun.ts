/**
 * One workflow instance as the engine runs it: `run(event, step)` of the user's
 * WorkflowEntrypoint, its status kept on disk, pause/resume/terminate/restart, events. A run that
 * stops (pause, restart of the process) is resumed by running `run()` again from the top: the
 * completed steps answer from storage, so nothing completed runs twice.
 */
import type { Logger } from '../../../core/log';
import type { DurableDatabase } from '../../storage/durableDatabase';
import type { TimerHandle, Timers } from '../../../core/timers';
import { WorkflowAborted, WorkflowError } from './workflowErrors';
import { WorkflowStep } from './workflowStep';
import { WorkflowStore, type WorkflowStatus } from './workflowStore';

export type WorkflowClass = new (ctx: unknown, env: unknown) => { run(event: unknown, step: WorkflowStep): unknown };

export interface RunDeps {
  readonly cls: WorkflowClass;
  readonly env: () => unknown;
  readonly timers: Timers;
  readonly logger: Logger;
}

export interface InstanceStatus {
  status: WorkflowStatus;
  error?: { name: string; message: string };
  output: unknown;
}

export class WorkflowRun {
  readonly store: WorkflowStore;
  /** Bumped by pause/terminate/restart: a run of an older generation stops at its next step. */
  private generation = 0;
  private readonly aborters = new Set<(error: Error) => void>();
  private readonly eventWaiters = new Set<() => void>();
  private running: Promise<void> | undefined;
  private waiting = false;
  /** Waits in progress (sleeps, retry delays, event waits): the run is parked on a timer. */
  private parked = 0;
  private readonly idleWaiters = new Set<() => void>();

  constructor(
    readonly id: string,
    db: DurableDatabase,
    private readonly deps: RunDeps,
  ) {
    this.store = new WorkflowStore(db);
  }

  /** Stores a new instance's params; it is queued and then runs. */
  async init(params: unknown): Promise<void> {
    this.store.setMeta('params', params);
    this.store.setMeta('created', this.deps.timers.now());
    this.store.status = 'queued';
    await this.store.db.commit();
  }

  status(): InstanceStatus {
    // miniflare never shows 'waiting' (Cloudflare does, during sleeps and event waits): a run
    // parked on a sleep or an event is 'running' here as in the oracle.
    const shown: WorkflowStatus = this.store.status;
    const error = this.store.meta<{ name: string; message: string }>('error');
    return { status: shown, ...(error ? { error } : {}), output: this.store.meta('output') ?? null };
  }

  /** Starts (or resumes by replaying) the run when its status says it should be running. */
  resume(): void {
    const status = this.store.status;
    if (!['queued', 'running', 'waiting', 'waitingForPause'].includes(status) || this.running) return;
    const generation = this.generation;
    this.running = this.execute(generation).finally(() => {
      if (this.generation === generation) this.running = undefined;
      this.notifyIfIdle();
    });
  }

  private async execute(generation: number): Promise<void> {
    const store = this.store;
    store.status = 'running';
    await store.db.commit();
    const step = new WorkflowStep({
      store,
      now: () => this.deps.timers.now(),
      timer: (ms, fn) => this.deps.timers.after(ms, fn),
      wait: (ms) => this.wait(ms, false),
      waitForEventOrTimeout: (ms) => this.wait(ms, true),
      checkpoint: () => {
        if (this.generation !== generation) throw new WorkflowAborted('aborted');
      },
      commit: () => store.db.commit(),
      setWaiting: (waiting) => (this.waiting = waiting),
    });
    const created = store.meta<number>('created') ?? this.deps.timers.now();
    const event = { payload: store.meta('params'), timestamp: new Date(created), instanceId: this.id };
    try {
      const instance = new this.deps.cls({ waitUntil: () => undefined }, this.deps.env());
      const output = await instance.run(event, step);
      if (this.generation !== generation) return;
      store.setMeta('output', output ?? null);
      store.status = 'complete';
    } catch (error) {
      if (this.generation !== generation || error instanceof WorkflowAborted) return;
      const err = error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
      if (err.name === 'NonRetryableError') {
        err.name = 'WorkflowFatalError';
        err.message = 'The execution of the Workflow instance was terminated, as a step threw an NonRetryableError and it was not handled';
      }
      this.deps.logger.warn(`[workflows] ${this.id}: ${err.name}: ${err.message}`);
      store.setMeta('error', err);
      store.status = 'errored';
    }
    await store.db.commit();
  }

  private wait(ms: number, orEvent: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.parked++;
      let unparked = false;
      const unpark = (): void => {
        if (!unparked) this.parked--;
        unparked = true;
      };
      const done = (): void => {
        unpark();
        timer.cancel();
        this.aborters.delete(abort);
        this.eventWaiters.delete(done);
        resolve();
      };
      const abort = (error: Error): void => {
        unpark();
        timer.cancel();
        this.eventWaiters.delete(done);
        reject(error);
      };
      const timer = this.deps.timers.after(ms, done);
      this.aborters.add(abort);
      if (orEvent) this.eventWaiters.add(done);
      this.notifyIfIdle();
    });
  }

  /** Resolves once the run is parked on a timer or an event, or has ended (tests, shutdown). */
  settled(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  private isIdle(): boolean {
    return this.running === undefined || this.parked > 0;
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of [...this.idleWaiters]) resolve();
    this.idleWaiters.clear();
  }

  /** Stops the current run at once (its sleeps and waits reject) and at its next step. */
  private abort(): void {
    this.generation++;
    this.running = undefined;
    this.waiting = false;
    for (const abort of [...this.aborters]) abort(new WorkflowAborted('aborted'));
    this.aborters.clear();
  }

  async sendEvent(type: string, payload: unknown): Promise<void> {
    if (typeof type !== 'string' || !type) throw new TypeError('sendEvent() needs a type');
    this.store.addEvent(type, payload, this.deps.timers.now());
    await this.store.db.commit();
    for (const wake of [...this.eventWaiters]) wake();
  }

  async pause(): Promise<void> {
    // As miniflare: only a running or waiting instance pauses.
    if (!['running', 'queued', 'waiting'].includes(this.store.status)) return;
    this.abort();
    this.store.status = 'paused';
    await this.store.db.commit();
  }

  async resumeFromPause(): Promise<void> {
    if (this.store.status !== 'paused') return;
    this.store.status = 'queued';
    await this.store.db.commit();
    this.resume();
  }

  async terminate(): Promise<void> {
    const status = this.store.status;
    if (['complete', 'errored', 'terminated'].includes(status)) {
      throw new WorkflowError('(instance.cannot_terminate) Cannot terminate instance since its on a finite state');
    }
    this.abort();
    this.store.status = 'terminated';
    await this.store.db.commit();
  }

  async restart(): Promise<void> {
    this.abort();
    this.store.resetRun();
    this.store.status = 'queued';
    await this.store.db.commit();
    this.resume();
  }

  /**
   * Stops (shutdown): the stored status resumes the run in the next process. Waits a while for a
   * step still running user code, so its database is not closed under it.
   */
  async stop(drainMs = 5000): Promise<void> {
    const running = this.running;
    this.abort();
    if (!running) return;
    let timer: TimerHandle | undefined;
    await Promise.race([running.catch(() => undefined), new Promise<void>((resolve) => (timer = this.deps.timers.after(drainMs, resolve, { unref: true })))]);
    timer?.cancel();
  }

  /** Step outputs in completion order (miniflare's `__LOCAL_DEV_STEP_OUTPUTS`). */
  stepOutputs(): unknown[] {
    return this.store.outputs();
  }
}
