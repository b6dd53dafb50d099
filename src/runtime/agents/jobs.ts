/**
 * Queue items and schedules in `cf_agents_jobs`, the one job table of agents 0.32.0
 * (docs/agents-sdk.md, "State and work in the agent's SQLite"): `capability` is "queue" or "scheduler", `time` is in ms, `payload`
 * is a JSON envelope, `created_at` in seconds. Durable, so pending work survives a restart.
 */
import { randomBytes } from 'node:crypto';
import { nextCronTime, parseCron } from '../../core/cron';
import type { SqlStorage } from '../objects/sqlStorage';

export interface RetryOptions {
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}

export interface ScheduleOptions {
  readonly retry?: RetryOptions;
  /** Return the kept schedule of the same timing, callback and payload instead of adding one. */
  readonly idempotent?: boolean;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 3000 };

export interface QueueItem<T = unknown> {
  readonly id: string;
  readonly payload: T;
  readonly callback: string;
  readonly created_at: number;
  readonly retry?: RetryOptions;
}

export type Schedule<T = unknown> = {
  readonly id: string;
  readonly callback: string;
  readonly payload: T;
  readonly time: number;
} & (
  | { readonly type: 'scheduled' }
  | { readonly type: 'delayed'; readonly delayInSeconds: number }
  | { readonly type: 'cron'; readonly cron: string }
  | { readonly type: 'interval'; readonly intervalSeconds: number }
);

const ALPHABET = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict';

/** A nanoid-style id of `size` URL-safe characters. */
export function nanoid(size = 21): string {
  let id = '';
  for (const byte of randomBytes(size)) id += ALPHABET[byte & 63];
  return id;
}

export type DueJob = { readonly kind: 'queue'; readonly item: QueueItem } | { readonly kind: 'schedule'; readonly item: Schedule };

interface Row {
  id: string;
  capability: string;
  fn: string;
  time: number;
  payload: string;
  retry_options: string | null;
  created_at: number;
  [key: string]: string | number | null;
}

export class JobStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS cf_agents_jobs (
      id TEXT PRIMARY KEY NOT NULL, capability TEXT NOT NULL, fn TEXT NOT NULL, time INTEGER NOT NULL,
      payload TEXT, retry_options TEXT, singleflight INTEGER, hung_timeout_seconds INTEGER,
      exclusive INTEGER, recovery_loop INTEGER, running INTEGER NOT NULL DEFAULT 0,
      execution_started_at INTEGER, created_at INTEGER NOT NULL) WITHOUT ROWID`);
    sql.exec('CREATE INDEX IF NOT EXISTS cf_agents_jobs_time ON cf_agents_jobs (time)');
  }

  enqueue(callback: string, payload: unknown, retry: RetryOptions | undefined, id = nanoid(9)): string {
    // Queue order is push order: times are made strictly increasing so equal milliseconds keep it.
    const last = Number(this.sql.exec("SELECT max(time) AS t FROM cf_agents_jobs WHERE capability = 'queue'").one()['t'] ?? 0);
    const time = Math.max(this.now(), last + 1);
    this.insert(id, 'queue', callback, time, { payload, owner_path: null, owner_path_key: null }, { ...DEFAULT_RETRY, ...retry }, null);
    return id;
  }

  queueItems(where = '', ...bindings: unknown[]): QueueItem[] {
    return this.rows(`capability = 'queue'${where}`, ...bindings).map((row) => {
      const envelope = JSON.parse(row.payload) as { payload: unknown };
      return {
        id: row.id,
        payload: envelope.payload,
        callback: row.fn,
        created_at: row.created_at,
        retry: row.retry_options ? (JSON.parse(row.retry_options) as RetryOptions) : DEFAULT_RETRY,
      };
    });
  }

  /**
   * A new schedule, or the one already kept for the same timing, callback and payload: a
   * recurring one (cron, interval) unless `idempotent` is false, a one-off only when it is true,
   * as agents 0.32.0 does, so an `onStart` that schedules on every wake keeps one row.
   */
  schedule(when: Date | number | string, callback: string, payload: unknown, options: ScheduleOptions, kind?: { intervalSeconds: number }): Schedule {
    const id = nanoid(9);
    const now = this.now();
    let schedule: Schedule;
    if (kind) {
      schedule = {
        id,
        callback,
        payload,
        type: 'interval',
        intervalSeconds: kind.intervalSeconds,
        time: Math.floor((now + kind.intervalSeconds * 1000) / 1000),
      };
    } else if (when instanceof Date) {
      schedule = { id, callback, payload, type: 'scheduled', time: Math.floor(when.getTime() / 1000) };
    } else if (typeof when === 'number') {
      if (!(when >= 0)) throw new Error('schedule: a delay is a non-negative number of seconds');
      schedule = { id, callback, payload, type: 'delayed', delayInSeconds: when, time: Math.floor((now + when * 1000) / 1000) };
    } else if (typeof when === 'string') {
      schedule = { id, callback, payload, type: 'cron', cron: when, time: Math.floor(nextCronTime(parseCron(when), now) / 1000) };
    } else {
      throw new Error('schedule: when is a Date, a number of seconds or a cron string');
    }
    const recurring = schedule.type === 'cron' || schedule.type === 'interval';
    const existing = (recurring ? options.idempotent !== false : options.idempotent === true) ? this.matching(schedule) : undefined;
    if (existing) return existing;
    const dueMs = this.dueMs(schedule, now, when);
    const { id: _id, callback: _cb, time: _time, ...rest } = schedule;
    this.insert(id, 'scheduler', callback, dueMs, { ...rest, owner_path: null, owner_path_key: null }, { ...DEFAULT_RETRY, ...options.retry }, 30);
    return schedule;
  }

  /** The kept schedule of the same type, callback, payload (as JSON) and cron or interval. */
  private matching(wanted: Schedule): Schedule | undefined {
    const payload = JSON.stringify(wanted.payload);
    return this.schedules(' AND fn = ? ORDER BY time', wanted.callback).find(
      (kept) =>
        kept.type === wanted.type &&
        JSON.stringify(kept.payload) === payload &&
        (kept.type !== 'cron' || kept.cron === (wanted as { cron: string }).cron) &&
        (kept.type !== 'interval' || kept.intervalSeconds === (wanted as { intervalSeconds: number }).intervalSeconds),
    );
  }

  private dueMs(schedule: Schedule, now: number, when: Date | number | string): number {
    switch (schedule.type) {
      case 'scheduled':
        return (when as Date).getTime();
      case 'delayed':
        return now + schedule.delayInSeconds * 1000;
      case 'interval':
        return now + schedule.intervalSeconds * 1000;
      case 'cron':
        return schedule.time * 1000;
    }
  }

  schedules(where = '', ...bindings: unknown[]): Schedule[] {
    return this.rows(`capability = 'scheduler'${where}`, ...bindings).map((row) => this.toSchedule(row));
  }

  private toSchedule(row: Row): Schedule {
    const envelope = JSON.parse(row.payload) as Record<string, unknown>;
    const { owner_path: _o, owner_path_key: _k, payload, ...kind } = envelope;
    return { id: row.id, callback: row.fn, payload, ...kind, time: Math.floor(row.time / 1000) } as Schedule;
  }

  delete(id: string): boolean {
    return this.sql.exec('DELETE FROM cf_agents_jobs WHERE id = ?', id).rowsWritten > 0;
  }

  deleteWhere(where: string, ...bindings: unknown[]): number {
    return this.sql.exec(`DELETE FROM cf_agents_jobs WHERE ${where}`, ...bindings).rowsWritten;
  }

  /** Ms of the earliest job, or undefined when there is none. */
  nextTime(): number | undefined {
    const t = this.sql.exec('SELECT min(time) AS t FROM cf_agents_jobs').one()['t'];
    return t === null || t === undefined ? undefined : Number(t);
  }

  /** The next job due now: queue items first, in push order, then schedules by time. */
  nextDue(): DueJob | undefined {
    const now = this.now();
    const queued = this.queueItems(' AND time <= ? ORDER BY time LIMIT 1', now)[0];
    if (queued) return { kind: 'queue', item: queued };
    const row = this.rows("capability = 'scheduler' AND time <= ? ORDER BY time LIMIT 1", now)[0];
    return row ? { kind: 'schedule', item: this.toSchedule(row) } : undefined;
  }

  retryOptions(id: string): Required<RetryOptions> {
    const row = this.rows('id = ?', id)[0];
    return { ...DEFAULT_RETRY, ...(row?.retry_options ? (JSON.parse(row.retry_options) as RetryOptions) : {}) };
  }

  /** After a run: a one-off schedule is deleted, a cron or interval one moves to its next time. */
  reschedule(schedule: Schedule): void {
    const now = this.now();
    if (schedule.type === 'cron') {
      this.sql.exec('UPDATE cf_agents_jobs SET time = ? WHERE id = ?', nextCronTime(parseCron(schedule.cron), now), schedule.id);
    } else if (schedule.type === 'interval') {
      this.sql.exec('UPDATE cf_agents_jobs SET time = ? WHERE id = ?', now + schedule.intervalSeconds * 1000, schedule.id);
    } else {
      this.delete(schedule.id);
    }
  }

  private insert(id: string, capability: string, fn: string, time: number, payload: unknown, retry: RetryOptions, hung: number | null): void {
    this.sql.exec(
      'INSERT INTO cf_agents_jobs (id, capability, fn, time, payload, retry_options, hung_timeout_seconds, running, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)',
      id,
      capability,
      fn,
      time,
      JSON.stringify(payload),
      JSON.stringify(retry),
      hung,
      Math.floor(this.now() / 1000),
    );
  }

  private rows(where: string, ...bindings: unknown[]): Row[] {
    return this.sql.exec<Row>(`SELECT * FROM cf_agents_jobs WHERE ${where}`, ...bindings).toArray();
  }
}
