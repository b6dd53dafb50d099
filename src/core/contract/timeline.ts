/**
 * The state timeline (docs/inspector.md): what an agent's state was before and after each event it
 * stored. The built-in worker writes one row per stored event into the table below, in the same
 * write group as the event itself, so the history is exactly as durable as the events; any worker
 * may write the same table and get the inspector's timeline. The inspector reads it through the
 * admin API's read-only query.
 */

/** The table's name in the agent's SQLite database. */
export const STATE_HISTORY_TABLE = 'hookbench_state_history';

/** The table, as a worker creates it (`onStart`). `seq` orders the rows; `before`/`after` are JSON. */
export const STATE_HISTORY_DDL = `CREATE TABLE IF NOT EXISTS ${STATE_HISTORY_TABLE} (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  title TEXT,
  at TEXT NOT NULL,
  before TEXT,
  after TEXT NOT NULL
)`;

/** One row written, bound with the event's id, type, title and time, then the state before and after as JSON. */
export const STATE_HISTORY_INSERT = `INSERT INTO ${STATE_HISTORY_TABLE} (event_id, event_type, title, at, before, after) VALUES (?, ?, ?, ?, ?, ?)`;

/** One row of the table, as it is written and read. */
export interface StateHistoryRow {
  readonly seq: number;
  readonly event_id: string;
  readonly event_type: string;
  readonly title: string | null;
  /** When the event was stored (ISO 8601). */
  readonly at: string;
  /** The state before the event, JSON (`null` when the agent had none). */
  readonly before: string | null;
  /** The state after the event, JSON. */
  readonly after: string;
}

/** The oldest first, at most `?` of the newest rows. */
export const STATE_HISTORY_QUERY = `SELECT seq, event_id, event_type, title, at, before, after FROM (SELECT * FROM ${STATE_HISTORY_TABLE} ORDER BY seq DESC LIMIT ?) ORDER BY seq`;

/** The state before or after the event of the row whose `seq` is `?`. */
export function stateHistoryStateQuery(side: 'before' | 'after'): string {
  return `SELECT ${side} FROM ${STATE_HISTORY_TABLE} WHERE seq = ?`;
}

/** Whether the instance's database has the table: a SELECT the read-only query route allows. */
export const STATE_HISTORY_EXISTS = `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '${STATE_HISTORY_TABLE}'`;

/** Keeps the newest `?` rows (the built-in worker's event retention applies to its history too). */
export const STATE_HISTORY_RETENTION = `DELETE FROM ${STATE_HISTORY_TABLE} WHERE seq IN (SELECT seq FROM ${STATE_HISTORY_TABLE} ORDER BY seq DESC LIMIT -1 OFFSET ?)`;
