/**
 * What an SQL statement does, from its first keyword: the durable database journals by it, D1 reports
 * `changed_db` by it, and the SQL console picks query or execute by it. Shared by serve and the
 * extension, so it lives in neither's engine.
 */
export type StatementKind = 'read' | 'dml' | 'other' | 'transaction';

/** Pragmas whose argument names what to read (`table_info(events)`), not a new value. */
const SUBJECT_PRAGMAS =
  /^(?:table_info|table_xinfo|table_list|index_info|index_xinfo|index_list|foreign_key_list|foreign_key_check|integrity_check|quick_check)$/i;

/**
 * Whether a PRAGMA only reads: `PRAGMA user_version` does, `PRAGMA user_version(2)` and
 * `PRAGMA user_version = 2` set it, and must be journaled like any write or a restart loses them.
 */
function pragmaReads(text: string): boolean {
  const match = /^\s*PRAGMA\s+(?:\w+\.)?(\w+)\s*(\(\s*[\w"'.]*\s*\))?\s*;?\s*$/i.exec(text);
  if (!match) return false;
  if (/^(?:optimize|incremental_vacuum|wal_checkpoint|shrink_memory)$/i.test(match[1]!)) return false;
  return match[2] === undefined || SUBJECT_PRAGMAS.test(match[1]!);
}

/**
 * What a statement may do, from its first keyword. `read` statements are never journaled; `other`
 * (DDL, PRAGMA with a value, WITH …) always are, so replay reproduces the same schema and settings.
 */
export function statementKind(text: string): StatementKind {
  const keyword = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase();
  switch (keyword) {
    case 'SELECT':
    case 'EXPLAIN':
    case 'VALUES':
      return 'read';
    case 'PRAGMA':
      return pragmaReads(text) ? 'read' : 'other';
    case 'INSERT':
    case 'UPDATE':
    case 'DELETE':
    case 'REPLACE':
      return 'dml';
    case 'BEGIN':
    case 'COMMIT':
    case 'END':
    case 'ROLLBACK':
    case 'SAVEPOINT':
    case 'RELEASE':
      return 'transaction';
    default:
      return 'other';
  }
}
