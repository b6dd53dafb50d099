/**
 * The agents SDK's record of the workflows an agent started (`runWorkflow`): the
 * `cf_agents_workflows` table in the agent's own SQLite, its rows as `WorkflowInfo`, paging with
 * a cursor, deletes by criteria, and the status updates that `getWorkflowStatus`, the
 * pause/resume/terminate calls and the workflow's callbacks make. Columns, statuses, defaults and
 * messages as the SDK (agents 0.32) keeps them, so a worker's queries over the table still work.
 */
import type { SqlStorage } from '../../objects/sqlStorage';

export type TrackedStatus = 'queued' | 'running' | 'paused' | 'errored' | 'terminated' | 'complete' | 'waiting' | 'waitingForPause' | 'unknown';

export interface WorkflowInfo {
  id: string;
  workflowId: string;
  workflowName: string;
  status: TrackedStatus;
  metadata: unknown;
  error: { name: string; message: string } | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

export interface WorkflowCriteria {
  status?: TrackedStatus | TrackedStatus[];
  workflowName?: string;
  metadata?: Record<string, string | number | boolean>;
  createdBefore?: Date;
  limit?: number;
  orderBy?: 'asc' | 'desc';
  cursor?: string;
}

export interface WorkflowPage {
  workflows: WorkflowInfo[];
  total: number;
  nextCursor: string | null;
}

type Row = Record<string, string | number | null> & {
  id: string;
  workflow_id: string;
  workflow_name: string;
  status: TrackedStatus;
  metadata: string | null;
  error_name: string | null;
  error_message: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
};

const FINAL = ['complete', 'errored', 'terminated'];

export class WorkflowTracking {
  constructor(
    private readonly sql: SqlStorage,
    /** Milliseconds since the epoch; rows keep whole seconds as the SDK's `unixepoch()`. */
    private readonly now: () => number,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS cf_agents_workflows (
      id TEXT PRIMARY KEY NOT NULL,
      workflow_id TEXT NOT NULL UNIQUE,
      workflow_name TEXT NOT NULL,
      status TEXT NOT NULL CHECK(status IN ('queued', 'running', 'paused', 'errored', 'terminated', 'complete', 'waiting', 'waitingForPause', 'unknown')),
      metadata TEXT,
      error_name TEXT,
      error_message TEXT,
      created_at INTEGER NOT NULL DEFAULT (unixepoch()),
      updated_at INTEGER NOT NULL DEFAULT (unixepoch()),
      completed_at INTEGER
    )`);
    sql.exec('CREATE INDEX IF NOT EXISTS idx_workflows_status ON cf_agents_workflows(status)');
    sql.exec('CREATE INDEX IF NOT EXISTS idx_workflows_name ON cf_agents_workflows(workflow_name)');
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** A new row, queued; refuses an instance id that is tracked already with the SDK's message. */
  insert(rowId: string, workflowId: string, workflowName: string, metadata: unknown): void {
    const at = this.seconds();
    try {
      this.sql.exec(
        "INSERT INTO cf_agents_workflows (id, workflow_id, workflow_name, status, metadata, created_at, updated_at) VALUES (?, ?, ?, 'queued', ?, ?, ?)",
        rowId,
        workflowId,
        workflowName,
        metadata ? JSON.stringify(metadata) : null,
        at,
        at,
      );
    } catch (error) {
      if ((error as Error).message.includes('UNIQUE constraint failed')) throw new Error(`Workflow with ID "${workflowId}" is already being tracked`);
      throw error;
    }
  }

  get(workflowId: string): WorkflowInfo | undefined {
    const row = this.sql.exec<Row>('SELECT * FROM cf_agents_workflows WHERE workflow_id = ?', workflowId).toArray()[0];
    return row ? toInfo(row) : undefined;
  }

  /** Records what `instance.status()` said. */
  update(workflowId: string, status: { status: string; error?: { name?: string; message?: string } | null }): void {
    const at = this.seconds();
    this.sql.exec(
      'UPDATE cf_agents_workflows SET status = ?, error_name = ?, error_message = ?, updated_at = ?, completed_at = ? WHERE workflow_id = ?',
      status.status,
      status.error?.name ?? null,
      status.error?.message ?? null,
      at,
      FINAL.includes(status.status) ? at : null,
      workflowId,
    );
  }

  /** `restartWorkflow` with `resetTracking`: queued again, times reset, error cleared. */
  reset(workflowId: string): void {
    const at = this.seconds();
    this.sql.exec(
      "UPDATE cf_agents_workflows SET status = 'queued', created_at = ?, updated_at = ?, completed_at = NULL, error_name = NULL, error_message = NULL WHERE workflow_id = ?",
      at,
      at,
      workflowId,
    );
  }

  /** The row updates a workflow's callback makes before the agent's hook runs. */
  onCallback(callback: { type: string; workflowId: string; error?: string }): void {
    const at = this.seconds();
    if (callback.type === 'progress') {
      this.sql.exec(
        "UPDATE cf_agents_workflows SET status = 'running', updated_at = ? WHERE workflow_id = ? AND status IN ('queued', 'waiting')",
        at,
        callback.workflowId,
      );
    } else if (callback.type === 'complete') {
      this.sql.exec(
        "UPDATE cf_agents_workflows SET status = 'complete', updated_at = ?, completed_at = ? WHERE workflow_id = ? AND status NOT IN ('terminated', 'paused')",
        at,
        at,
        callback.workflowId,
      );
    } else if (callback.type === 'error') {
      this.sql.exec(
        "UPDATE cf_agents_workflows SET status = 'errored', updated_at = ?, completed_at = ?, error_name = 'WorkflowError', error_message = ? WHERE workflow_id = ? AND status NOT IN ('terminated', 'paused')",
        at,
        at,
        callback.error ?? null,
        callback.workflowId,
      );
    }
  }

  list(criteria: WorkflowCriteria = {}): WorkflowPage {
    const limit = Math.min(criteria.limit ?? 50, 100);
    const ascending = criteria.orderBy === 'asc';
    const total = this.count(criteria);
    const { where, params } = filters({ ...criteria, createdBefore: undefined });
    let query = `SELECT * FROM cf_agents_workflows WHERE 1=1${where}`;
    if (criteria.cursor) {
      const cursor = decodeCursor(criteria.cursor);
      query += ascending ? ' AND (created_at > ? OR (created_at = ? AND workflow_id > ?))' : ' AND (created_at < ? OR (created_at = ? AND workflow_id < ?))';
      params.push(cursor.createdAt, cursor.createdAt, cursor.workflowId);
    }
    const order = ascending ? 'ASC' : 'DESC';
    query += ` ORDER BY created_at ${order}, workflow_id ${order} LIMIT ?`;
    params.push(limit + 1);
    const rows = this.sql.exec<Row>(query, ...params).toArray();
    const more = rows.length > limit;
    const workflows = rows.slice(0, limit).map(toInfo);
    const last = workflows[workflows.length - 1];
    return { workflows, total, nextCursor: more && last ? encodeCursor(last) : null };
  }

  private count(criteria: WorkflowCriteria): number {
    const { where, params } = filters(criteria);
    return Number(this.sql.exec<{ count: number }>(`SELECT COUNT(*) AS count FROM cf_agents_workflows WHERE 1=1${where}`, ...params).toArray()[0]?.count ?? 0);
  }

  delete(workflowId: string): boolean {
    return this.sql.exec('DELETE FROM cf_agents_workflows WHERE workflow_id = ?', workflowId).rowsWritten > 0;
  }

  deleteMany(criteria: WorkflowCriteria = {}): number {
    const { where, params } = filters(criteria);
    return this.sql.exec(`DELETE FROM cf_agents_workflows WHERE 1=1${where}`, ...params).rowsWritten;
  }

  rename(oldName: string, newName: string): number {
    return this.sql.exec('UPDATE cf_agents_workflows SET workflow_name = ? WHERE workflow_name = ?', newName, oldName).rowsWritten;
  }

  /** Binding names with tracked rows that are no binding of this worker any more. */
  orphans(bindings: readonly string[]): string[] {
    const names = this.sql.exec<{ workflow_name: string }>('SELECT DISTINCT workflow_name FROM cf_agents_workflows').toArray();
    return names.map((row) => row.workflow_name).filter((name) => !bindings.includes(name));
  }
}

function filters(criteria: WorkflowCriteria): { where: string; params: (string | number | boolean)[] } {
  let where = '';
  const params: (string | number | boolean)[] = [];
  if (criteria.status) {
    const statuses = Array.isArray(criteria.status) ? criteria.status : [criteria.status];
    where += ` AND status IN (${statuses.map(() => '?').join(', ')})`;
    params.push(...statuses);
  }
  if (criteria.workflowName) {
    where += ' AND workflow_name = ?';
    params.push(criteria.workflowName);
  }
  for (const [key, value] of Object.entries(criteria.metadata ?? {})) {
    where += " AND json_extract(metadata, '$.' || ?) = ?";
    params.push(key, value);
  }
  if (criteria.createdBefore) {
    where += ' AND created_at < ?';
    params.push(Math.floor(criteria.createdBefore.getTime() / 1000));
  }
  return { where, params };
}

function toInfo(row: Row): WorkflowInfo {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    workflowName: row.workflow_name,
    status: row.status,
    metadata: row.metadata ? (JSON.parse(row.metadata) as unknown) : null,
    error: row.error_name ? { name: row.error_name, message: row.error_message ?? '' } : null,
    createdAt: new Date(row.created_at * 1000),
    updatedAt: new Date(row.updated_at * 1000),
    completedAt: row.completed_at ? new Date(row.completed_at * 1000) : null,
  };
}

function encodeCursor(info: WorkflowInfo): string {
  return Buffer.from(JSON.stringify({ c: Math.floor(info.createdAt.getTime() / 1000), i: info.workflowId })).toString('base64');
}

function decodeCursor(cursor: string): { createdAt: number; workflowId: string } {
  try {
    const data = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { c?: unknown; i?: unknown };
    if (typeof data.c !== 'number' || typeof data.i !== 'string') throw new Error('Invalid cursor structure');
    return { createdAt: data.c, workflowId: data.i };
  } catch {
    throw new Error('Invalid pagination cursor. The cursor may be malformed or corrupted.');
  }
}
