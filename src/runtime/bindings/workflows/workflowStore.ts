/**
 * One workflow instance's durable record on sql.js (journal + snapshots, as a Durable Object's):
 * its params, status, output or error, each completed step's result, and the events sent to it.
 * A step's result is committed before the workflow moves on, so a restart resumes after the last
 * completed step without running it again.
 */
import { deserialize, serialize } from 'node:v8';
import type { DurableDatabase } from '../../storage/durableDatabase';

export type WorkflowStatus = 'queued' | 'running' | 'paused' | 'errored' | 'terminated' | 'complete' | 'waitingForPause' | 'waiting' | 'unknown';

export interface StoredEvent {
  readonly type: string;
  readonly payload: unknown;
  readonly timestamp: Date;
}

export class WorkflowStore {
  constructor(readonly db: DurableDatabase) {
    db.exec('CREATE TABLE IF NOT EXISTS wf_meta (k TEXT PRIMARY KEY, v BLOB)');
    db.exec('CREATE TABLE IF NOT EXISTS wf_steps (key TEXT PRIMARY KEY, ok INTEGER NOT NULL, value BLOB)');
    db.exec(
      'CREATE TABLE IF NOT EXISTS wf_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, payload BLOB, at INTEGER NOT NULL, taken_by TEXT)',
    );
  }

  meta<T>(key: string): T | undefined {
    const row = this.db.exec('SELECT v FROM wf_meta WHERE k = ?', [key]).rows[0];
    return row ? (deserialize(row[0] as Uint8Array) as T) : undefined;
  }

  setMeta(key: string, value: unknown): void {
    this.db.exec('INSERT OR REPLACE INTO wf_meta (k, v) VALUES (?, ?)', [key, new Uint8Array(serialize(value))]);
  }

  get status(): WorkflowStatus {
    return this.meta<WorkflowStatus>('status') ?? 'unknown';
  }

  set status(status: WorkflowStatus) {
    this.setMeta('status', status);
  }

  /** A completed step: `{ ok: true, value }`, or `{ ok: false, value: error }` for a final failure. */
  step(key: string): { ok: boolean; value: unknown } | undefined {
    const row = this.db.exec('SELECT ok, value FROM wf_steps WHERE key = ?', [key]).rows[0];
    return row ? { ok: row[0] === 1, value: row[1] === null ? undefined : deserialize(row[1] as Uint8Array) } : undefined;
  }

  setStep(key: string, ok: boolean, value: unknown): void {
    this.db.exec('INSERT OR REPLACE INTO wf_steps (key, ok, value) VALUES (?, ?, ?)', [
      key,
      ok ? 1 : 0,
      value === undefined ? null : new Uint8Array(serialize(value)),
    ]);
  }

  addEvent(type: string, payload: unknown, at: number): void {
    this.db.exec('INSERT INTO wf_events (type, payload, at) VALUES (?, ?, ?)', [type, new Uint8Array(serialize(payload ?? null)), at]);
  }

  /** The oldest event of `type` no wait has taken, marked taken by `key`. */
  takeEvent(type: string, key: string): StoredEvent | undefined {
    const row = this.db.exec('SELECT seq, payload, at FROM wf_events WHERE type = ? AND taken_by IS NULL ORDER BY seq LIMIT 1', [type]).rows[0];
    if (!row) return undefined;
    this.db.exec('UPDATE wf_events SET taken_by = ? WHERE seq = ?', [key, row[0]!]);
    return { type, payload: deserialize(row[1] as Uint8Array), timestamp: new Date(Number(row[2])) };
  }

  /** Results of completed `do` steps and received events' payloads, oldest first (as miniflare's logs). */
  outputs(): unknown[] {
    return this.db
      .exec("SELECT key, value FROM wf_steps WHERE ok = 1 AND (key LIKE 'do:%' OR (key LIKE 'waitForEvent:%' AND key NOT LIKE '%:until')) ORDER BY rowid")
      .rows.map(([key, value]) => {
        const stored = value === null ? undefined : deserialize(value as Uint8Array);
        const shown = String(key).startsWith('waitForEvent:') ? (stored as { payload?: unknown } | undefined)?.payload : stored;
        return shown === undefined ? null : shown;
      });
  }

  /** The steps recorded so far, in the order they were first recorded (read only, for the explorer). */
  steps(): { kind: string; name: string; ok: boolean }[] {
    return this.db.exec("SELECT key, ok FROM wf_steps WHERE key NOT LIKE '%:until' ORDER BY rowid").rows.map(([key, ok]) => {
      const text = String(key);
      const colon = text.indexOf(':');
      return { kind: text.slice(0, colon), name: text.slice(colon + 1).replace(/#\d+$/, ''), ok: ok === 1 };
    });
  }

  /** `restart()`: the steps and the events' takers are forgotten; params stay. */
  resetRun(): void {
    this.db.exec('DELETE FROM wf_steps');
    this.db.exec('UPDATE wf_events SET taken_by = NULL');
    this.db.exec("DELETE FROM wf_meta WHERE k IN ('output', 'error')");
  }
}
