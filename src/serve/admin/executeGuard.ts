/**
 * What a console write (`POST …/execute`) must leave as it was, read from a database before and
 * after the statement runs on a copy (adminQueryWorker.ts). The statement policy (readOnlySql.ts)
 * refuses what names these things; this catches what reaches them without naming them: a
 * trigger the worker's code made, a spelling the policy did not foresee.
 *
 * sql.js exposes no authorizer (sqlite3_set_authorizer), and SQLite's update hook misses
 * WITHOUT ROWID tables (`_cf_KV`), `DELETE` without `WHERE` and the schema, so the comparison is
 * of the things themselves: the runtime's tables (schema and rows), `writable_schema`, the
 * connection's settings, the attached databases and the temporary schema.
 */
import { createHash } from 'node:crypto';
import type { Database, SqlValue } from 'sql.js';
import { isOwnTable } from '../../runtime/storage/ownTables';
import { namesOwnTable } from './readOnlySql';

/** Each guarded thing, by how a refusal names it, and a digest of it. */
export type Guard = ReadonlyMap<string, string>;

/**
 * The connection's settings a statement could change: each decides how the agent's own statements
 * run, and none is part of the database file, so a change would last only until the instance is
 * next opened from a snapshot.
 */
const SETTINGS = [
  'journal_mode',
  'locking_mode',
  'synchronous',
  'temp_store',
  'cache_size',
  'foreign_keys',
  'recursive_triggers',
  'ignore_check_constraints',
  'legacy_alter_table',
  'reverse_unordered_selects',
  'secure_delete',
  'cell_size_check',
  'trusted_schema',
  'automatic_index',
  'query_only',
  'page_size',
  'auto_vacuum',
  'encoding',
];

/** Reads everything guarded from `db`. */
export function readGuard(db: Database): Guard {
  const guard = new Map<string, string>();
  guard.set('writable_schema', text(db, 'PRAGMA writable_schema'));
  for (const setting of SETTINGS) guard.set(`the connection setting ${setting}`, text(db, `PRAGMA ${setting}`));
  guard.set('the temporary schema', text(db, 'SELECT type, name, tbl_name, sql FROM sqlite_temp_master ORDER BY type, name'));
  // `temp` is listed once something (the line above) has used it: only attached ones count.
  guard.set('the attached databases', text(db, "SELECT name FROM pragma_database_list WHERE name <> 'temp' ORDER BY seq"));
  // rootpage is left out: VACUUM moves tables, which changes nothing the runtime relies on.
  const schema = rows(db, 'SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').filter(
    ([type, name, table, sql]) =>
      isOwnTable(String(name)) || isOwnTable(String(table)) || ((type === 'trigger' || type === 'view') && typeof sql === 'string' && namesOwnTable(sql)),
  );
  guard.set("the schema of the runtime's own tables", digest(schema));
  for (const [type, name] of schema) {
    if (type !== 'table') continue;
    guard.set(`the rows of the runtime's own table ${String(name)}`, digest(rows(db, `SELECT * FROM "${String(name).replace(/"/g, '""')}"`), true));
  }
  const sequences =
    db.exec("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").length > 0
      ? rows(db, 'SELECT name, seq FROM sqlite_sequence').filter(([name]) => isOwnTable(String(name)))
      : [];
  guard.set("the AUTOINCREMENT counters of the runtime's own tables", digest(sequences, true));
  return guard;
}

/** How `after` differs from `before`, as a refusal names it, or undefined when it does not. */
export function changedGuard(before: Guard, after: Guard): string | undefined {
  for (const [what, value] of after) if (before.get(what) !== value) return what;
  for (const what of before.keys()) if (!after.has(what)) return what;
  return undefined;
}

function rows(db: Database, sql: string): SqlValue[][] {
  return db.exec(sql)[0]?.values ?? [];
}

function text(db: Database, sql: string): string {
  return JSON.stringify(rows(db, sql));
}

/**
 * A digest of `values`; `unordered` when the order is not part of what is compared (a table's
 * rows: VACUUM may renumber the rowids of a table without an INTEGER PRIMARY KEY).
 */
function digest(values: SqlValue[][], unordered = false): string {
  const lines = values.map((row) => JSON.stringify(row.map((v) => (v instanceof Uint8Array ? { blob: Buffer.from(v).toString('base64') } : v))));
  if (unordered) lines.sort();
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line).update('\n');
  return hash.digest('base64');
}
