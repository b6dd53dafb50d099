/**
 * The tables of an agent's database that other rooms read, each declared once: its name, its
 * columns and the SQL run against it, for the room that writes it and the rooms that read it.
 * - `events`: the built-in worker's stored deliveries (src/workers/default writes it; the admin API
 *   clears it, the explorer counts and lists it, the extension reads a payload from it).
 * - the state row: the agents SDK's `cf_agents_state` (the runtime's Agent writes it; the admin
 *   API's instance details read it).
 * The third, the state history the timeline reads, is declared in timeline.ts beside its rows.
 */
import type { EventRow, StoredEvent } from './instances';

/** The built-in worker's table of stored deliveries, one row per delivery id. */
export const EVENTS_TABLE = 'events';

/** Its columns, in the order of the table. */
export const EVENT_COLUMNS = [
  'id',
  'type',
  'action',
  'title',
  'description',
  'url',
  'actor',
  'payload',
  'timestamp',
] as const satisfies readonly (keyof StoredEvent)[];

/** What the explorer lists of an event, the payload left behind. */
export const EVENT_ROW_COLUMNS = ['id', 'type', 'action', 'title', 'timestamp'] as const satisfies readonly (keyof EventRow)[];

/**
 * The table as the worker creates it (`onStart`), byte for byte as it always has: SQLite keeps a
 * table's statement as written in `sqlite_master`, so every data folder holds this text.
 */
export const EVENTS_DDL = `CREATE TABLE IF NOT EXISTS events (
      id TEXT PRIMARY KEY,
      type TEXT NOT NULL,
      action TEXT,
      title TEXT NOT NULL,
      description TEXT,
      url TEXT,
      actor TEXT,
      payload TEXT,
      timestamp TEXT NOT NULL
    )`;

/** Newest first is how everything reads the table: the worker's retention, callables and the explorer. */
export const EVENTS_INDEX_DDL = 'CREATE INDEX IF NOT EXISTS idx_events_timestamp ON events (timestamp DESC)';

/** Stores one event, bound with {@link eventValues}; a delivery id already stored inserts nothing (the dedup). */
export const EVENTS_INSERT = `INSERT INTO ${EVENTS_TABLE} (${EVENT_COLUMNS.join(', ')}) VALUES (${EVENT_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (id) DO NOTHING`;

/** The values of {@link EVENTS_INSERT}, in column order. */
export function eventValues(event: StoredEvent): StoredEvent[(typeof EVENT_COLUMNS)[number]][] {
  return EVENT_COLUMNS.map((column) => event[column]);
}

/** The newest `?` events as {@link EventRow}s, newest first: the explorer's read when the agent has no `getEvents`. */
export const EVENTS_NEWEST = `SELECT ${EVENT_ROW_COLUMNS.join(', ')} FROM ${EVENTS_TABLE} ORDER BY timestamp DESC LIMIT ?`;

/** The `payload` of the event whose id is `?`. */
export const EVENT_PAYLOAD = `SELECT payload FROM ${EVENTS_TABLE} WHERE id = ?`;

/** Every event gone, the state left as it is (the admin API's Clear Events). */
export const EVENTS_CLEAR = `DELETE FROM ${EVENTS_TABLE}`;

/** The agents SDK's state table: one row, under {@link AGENT_STATE_ROW_ID}, the state as JSON. */
export const AGENT_STATE_TABLE = 'cf_agents_state';

/** The id of the SDK's one state row. */
export const AGENT_STATE_ROW_ID = 'cf_state_row_id';

/** The table as the SDK creates it, and as SQLite keeps it in `sqlite_master`. */
export const AGENT_STATE_DDL = `CREATE TABLE IF NOT EXISTS ${AGENT_STATE_TABLE} (id TEXT PRIMARY KEY NOT NULL, state TEXT)`;

/** The state's text, bound with {@link AGENT_STATE_ROW_ID}. */
export const AGENT_STATE_SELECT = `SELECT state FROM ${AGENT_STATE_TABLE} WHERE id = ?`;

/** Sets the state's text, bound with {@link AGENT_STATE_ROW_ID} and {@link stateText}. */
export const AGENT_STATE_UPSERT = `INSERT OR REPLACE INTO ${AGENT_STATE_TABLE} (id, state) VALUES (?, ?)`;

/** The state as the row holds it. */
export function stateText(state: unknown): string {
  return JSON.stringify(state);
}

/** The state the row's text holds. */
export function stateFromText(text: string): unknown {
  return JSON.parse(text);
}
