/**
 * A Workflow binding (`workflows: [{ name, binding, class_name }]` in the wrangler config):
 * `create({ id, params })`, `createBatch`, `get(id)` and the instance handle's `status`, `pause`,
 * `resume`, `terminate`, `restart`, `sendEvent`. Each instance is its own sql.js database under
 * `<data>/workflows/<name>/<id>/`; instances that were running when the process stopped resume
 * when it starts again. Ids, defaults and messages as miniflare's workflows engine.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DurableDatabase } from '../../storage/durableDatabase';
import { encodeName } from '../../storage/names';
import { readPrivate, writePrivate } from '../../../core/privateFiles';
import type { Platform } from '../../platform';
import { WorkflowError } from './workflowErrors';
import { WorkflowRun, type InstanceStatus, type WorkflowClass } from './workflowRun';

const ID_PATTERN = /^[a-zA-Z0-9_][a-zA-Z0-9-_]*$/;
const MAX_ID_LENGTH = 100;

export class WorkflowInstanceHandle {
  constructor(
    readonly id: string,
    private readonly run: WorkflowRun,
  ) {}

  async status(): Promise<InstanceStatus & { __LOCAL_DEV_STEP_OUTPUTS: unknown[] }> {
    const { status, error, output } = this.run.status();
    return { status, __LOCAL_DEV_STEP_OUTPUTS: this.run.stepOutputs(), output, ...(error ? { error } : {}) };
  }

  pause(): Promise<void> {
    return this.run.pause();
  }

  resume(): Promise<void> {
    return this.run.resumeFromPause();
  }

  terminate(): Promise<void> {
    return this.run.terminate();
  }

  restart(): Promise<void> {
    return this.run.restart();
  }

  sendEvent({ type, payload }: { type: string; payload?: unknown }): Promise<void> {
    return this.run.sendEvent(type, payload);
  }
}

export class WorkflowBinding {
  private readonly runs = new Map<string, Promise<WorkflowRun>>();

  constructor(
    private readonly platform: Platform,
    /** The workflow's name in the config. */
    readonly workflowName: string,
    readonly className: string,
    private readonly cls: WorkflowClass,
    private readonly env: () => unknown,
    /** This workflow's folder. */
    private readonly dir: string,
  ) {}

  async create(options: { id?: string; params?: unknown } = {}): Promise<WorkflowInstanceHandle> {
    const id = options.id ?? randomUUID();
    if (typeof id !== 'string' || id.length > MAX_ID_LENGTH || !ID_PATTERN.test(id)) throw new WorkflowError('Workflow instance has invalid id');
    const run = await this.open(id);
    if (run.store.status === 'unknown') {
      await run.init(options.params ?? {});
      run.resume();
    } else {
      // miniflare answers a second create of an id with the existing instance, unchanged.
      this.platform.logger.warn(`[workflows] ${this.workflowName}: an instance with id "${id}" already exists; create() returned it unchanged`);
    }
    return new WorkflowInstanceHandle(id, run);
  }

  async createBatch(batch: { id?: string; params?: unknown }[]): Promise<WorkflowInstanceHandle[]> {
    if (!Array.isArray(batch) || batch.length === 0) throw new Error('WorkflowError: batchCreate should have at least 1 instance');
    return Promise.all(batch.map((options) => this.create(options)));
  }

  async get(id: string): Promise<WorkflowInstanceHandle> {
    if (typeof id !== 'string' || !this.exists(id)) throw new Error('instance.not_found');
    return new WorkflowInstanceHandle(id, await this.open(id));
  }

  private exists(id: string): boolean {
    return this.runs.has(id) || fs.existsSync(path.join(this.dir, encodeName(id), 'id'));
  }

  private open(id: string): Promise<WorkflowRun> {
    let run = this.runs.get(id);
    if (!run) {
      const dir = path.join(this.dir, encodeName(id));
      run = DurableDatabase.open({ sql: this.platform.sql, dir, log: this.platform.log }).then((db) => {
        if (!fs.existsSync(path.join(dir, 'id'))) writePrivate(path.join(dir, 'id'), id);
        return new WorkflowRun(id, db, { cls: this.cls, env: this.env, timers: this.platform.timers, logger: this.platform.logger });
      });
      this.runs.set(id, run);
      run.catch(() => this.runs.delete(id));
    }
    return run;
  }

  /** Resolves once every open instance is parked on a timer or an event, or has ended. */
  async settled(): Promise<void> {
    const runs = await Promise.all([...this.runs.values()]);
    await Promise.all(runs.map((run) => run.settled()));
  }

  /** Resumes every instance that was queued, running or waiting when the last process stopped. */
  async resumeAll(): Promise<void> {
    if (!fs.existsSync(this.dir)) return;
    for (const entry of fs.readdirSync(this.dir)) {
      const file = path.join(this.dir, entry, 'id');
      if (!fs.existsSync(file)) continue;
      const id = readPrivate(file).toString('utf8');
      try {
        (await this.open(id)).resume();
      } catch (error) {
        this.platform.logger.error(`[workflows] ${this.workflowName}/${id}: cannot resume: ${(error as Error).message}`);
      }
    }
  }

  /** An instance's status and recorded steps, for the explorer (read only; undefined when unknown). */
  async describe(id: string): Promise<(InstanceStatus & { steps: { kind: string; name: string; ok: boolean }[] }) | undefined> {
    if (!this.exists(id)) return undefined;
    const run = await this.open(id);
    return { ...run.status(), steps: run.store.steps() };
  }

  /** Instance ids with data on disk. */
  instanceIds(): string[] {
    if (!fs.existsSync(this.dir)) return [];
    return fs
      .readdirSync(this.dir)
      .filter((entry) => fs.existsSync(path.join(this.dir, entry, 'id')))
      .map((entry) => readPrivate(path.join(this.dir, entry, 'id')).toString('utf8'))
      .sort();
  }

  async shutdown(): Promise<void> {
    const runs = await Promise.allSettled([...this.runs.values()]);
    this.runs.clear();
    await Promise.all(
      runs.map(async (result) => {
        if (result.status !== 'fulfilled') return;
        await result.value.stop();
        await result.value.store.db
          .close()
          .catch((error: unknown) => this.platform.logger.error(`[workflows] closing ${result.value.id}: ${(error as Error).message}`));
      }),
    );
  }
}
