/**
 * D1 on sql.js: the `D1Database` binding (prepare/bind/first/all/raw/run, atomic batch, exec,
 * withSession, dump) over one durable database per database id. Values, results, `meta` and error
 * texts follow workerd's D1 client (`D1_ERROR: <sqlite message>: SQLITE_ERROR`,
 * `D1_TYPE_ERROR: Type 'undefined' not supported for value 'undefined'`, `D1_COLUMN_NOTFOUND`,
 * `D1_EXEC_ERROR: Error in line N: …`); blobs come back as arrays of byte numbers, as on D1.
 */
import { statementKind } from '../../core/sqlStatementKind';
import type { DurableDatabase } from '../storage/durableDatabase';
import type { SqlValue } from '../storage/journal';
import type { BindingStore } from './bindingStore';
import { parameterCount, splitStatements } from './sqlSplit';

type Cell = number | string | null | number[];

export interface D1Meta {
  readonly served_by: string;
  readonly duration: number;
  readonly changes: number;
  readonly last_row_id: number;
  readonly changed_db: boolean;
  readonly size_after: number;
  readonly rows_read: number;
  readonly rows_written: number;
}

export interface D1Result {
  readonly success: true;
  readonly meta: D1Meta;
  readonly results: Record<string, Cell>[];
}

interface Raw {
  readonly columns: string[];
  readonly rows: Cell[][];
  readonly meta: D1Meta;
}

const EXTENDED_CONSTRAINTS: readonly [RegExp, string][] = [
  [/^UNIQUE constraint/, 'SQLITE_CONSTRAINT_UNIQUE'],
  [/^NOT NULL constraint/, 'SQLITE_CONSTRAINT_NOTNULL'],
  [/^CHECK constraint/, 'SQLITE_CONSTRAINT_CHECK'],
  [/^FOREIGN KEY constraint/, 'SQLITE_CONSTRAINT_FOREIGNKEY'],
];

/** SQLite's result code name for a message sql.js hands back (it keeps only the text). */
function sqliteCode(message: string): string {
  if (/constraint failed/i.test(message)) {
    const extended = EXTENDED_CONSTRAINTS.find(([pattern]) => pattern.test(message))?.[1];
    return extended ? `SQLITE_CONSTRAINT (extended: ${extended})` : 'SQLITE_CONSTRAINT';
  }
  if (/datatype mismatch/i.test(message)) return 'SQLITE_MISMATCH';
  if (/too big/i.test(message)) return 'SQLITE_TOOBIG';
  return 'SQLITE_ERROR';
}

/** Raised before SQLite sees the statement; D1 reports it without a result code. */
class BindingCountError extends Error {}

/**
 * The text D1 reports for a failed statement. workerd adds SQLite's error offset to syntax
 * errors and unknown columns (`near "X": syntax error at offset 7`, `no such column: x at
 * offset 7`); sql.js does not expose it, so it is the position of the token SQLite names.
 */
function upstreamText(error: unknown, statement?: string): string {
  let message = error instanceof Error ? error.message : String(error);
  if (error instanceof BindingCountError) return message;
  const token = (/^near "(.*)": syntax error$/.exec(message) ?? /^no such column: (.*)$/.exec(message))?.[1];
  if (token !== undefined && statement !== undefined && statement.includes(token)) message += ` at offset ${statement.indexOf(token)}`;
  return `${message}: ${sqliteCode(message)}`;
}

/** Carries the statement that failed to the error text. */
class StatementError extends Error {
  constructor(
    readonly inner: unknown,
    readonly statement: string,
  ) {
    super(inner instanceof Error ? inner.message : String(inner));
  }
}

const describeFailure = (error: unknown) => (error instanceof StatementError ? upstreamText(error.inner, error.statement) : upstreamText(error));

function d1Error(prefix: string, text: string): Error {
  return new Error(`${prefix}: ${text}`, { cause: new Error(text) });
}

function toBindValue(value: unknown): SqlValue | number[] {
  if (typeof value === 'number' || typeof value === 'string' || value === null) return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'object') {
    if (Array.isArray(value) && value.every((b: unknown) => typeof b === 'number' && b >= 0 && b < 256)) return value as number[];
    if (value instanceof ArrayBuffer) return Array.from(new Uint8Array(value));
    if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  }
  const shown = typeof value === 'symbol' ? value.toString() : String(value);
  throw d1Error('D1_TYPE_ERROR', `Type '${typeof value}' not supported for value '${shown}'`);
}

/** The values as sql.js binds them: byte arrays become blobs. */
const toSql = (params: readonly unknown[]): SqlValue[] => params.map((p) => (Array.isArray(p) ? new Uint8Array(p as number[]) : (p as SqlValue)));
const toCell = (value: SqlValue): Cell => (value instanceof Uint8Array ? Array.from(value) : value);

/**
 * The row id D1 reports: SQLite's last insert row id on the database's connection, as the
 * worker's own statements left it — an insert by `exec`, or by a batch later rolled back, counts
 * (SQLite keeps it through a rollback), while one replayed from the journal when the database
 * opened does not (a fresh connection on D1 reports 0).
 */
interface RowIds {
  last: number;
}

const connectionRowId = (db: DurableDatabase): number => Number(db.exec('SELECT last_insert_rowid()').rows[0]![0]);

/** Runs one statement on the open database; throws the plain SQLite message. */
function runStatement(db: DurableDatabase, statement: string, params: readonly unknown[], rowIds: RowIds): Raw {
  const rowIdBefore = connectionRowId(db);
  const started = performance.now();
  const expected = parameterCount(statement);
  if (expected !== params.length) throw new BindingCountError('Wrong number of parameter bindings for SQL query.');
  let result: ReturnType<DurableDatabase['exec']>;
  try {
    result = db.exec(statement, toSql(params));
  } catch (error) {
    throw new StatementError(error, statement);
  }
  const { columns, rows, rowsWritten } = result;
  const rowIdAfter = connectionRowId(db);
  if (rowIdAfter !== rowIdBefore) rowIds.last = rowIdAfter;
  const pages = Number(db.exec('PRAGMA page_count').rows[0]![0]);
  const pageSize = Number(db.exec('PRAGMA page_size').rows[0]![0]);
  const meta: D1Meta = {
    served_by: 'miniflare.db',
    duration: performance.now() - started,
    changes: rowsWritten,
    last_row_id: rowIds.last,
    changed_db: rowsWritten > 0 || statementKind(statement) === 'other',
    size_after: pages * pageSize,
    rows_read: rows.length,
    rows_written: rowsWritten,
  };
  return { columns, rows: rows.map((row) => row.map(toCell)), meta };
}

function asObjects(raw: Raw): D1Result {
  return {
    success: true,
    meta: raw.meta,
    results: raw.rows.map((row) => Object.fromEntries(row.map((cell, i) => [raw.columns[i]!, cell]))),
  };
}

export class D1PreparedStatement {
  constructor(
    private readonly database: D1Database,
    readonly statement: string,
    readonly params: readonly unknown[] = [],
  ) {}

  bind(...values: unknown[]): D1PreparedStatement {
    return new D1PreparedStatement(this.database, this.statement, values.map(toBindValue));
  }

  async first(column?: string): Promise<unknown> {
    const { results } = asObjects(await this.database.query(this));
    if (results.length === 0) return null;
    const row = results[0]!;
    if (column === undefined) return row;
    if (row[column] === undefined) throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`, { cause: new Error('Column not found') });
    return row[column];
  }

  async all(): Promise<D1Result> {
    return asObjects(await this.database.query(this));
  }

  async run(): Promise<D1Result> {
    return asObjects(await this.database.query(this));
  }

  async raw(options?: { columnNames?: boolean }): Promise<unknown[]> {
    const { columns, rows } = await this.database.query(this);
    return [...(options?.columnNames ? [columns] : []), ...rows];
  }
}

export class D1Database {
  private readonly rowIds: RowIds = { last: 0 };

  constructor(private readonly store: BindingStore) {}

  prepare(query: string): D1PreparedStatement {
    return new D1PreparedStatement(this, String(query));
  }

  /** One statement, committed before its result is handed back. */
  async query(statement: D1PreparedStatement): Promise<Raw> {
    const [first] = splitStatements(statement.statement);
    try {
      return await this.store.write((db) => runStatement(db, first ?? statement.statement, statement.params, this.rowIds));
    } catch (error) {
      throw d1Error('D1_ERROR', describeFailure(error));
    }
  }

  /** Every statement or none: a failure rolls the whole batch back, as on D1. */
  async batch(statements: readonly D1PreparedStatement[]): Promise<D1Result[]> {
    if (!Array.isArray(statements) || statements.some((s) => !(s instanceof D1PreparedStatement))) {
      throw new TypeError('D1_ERROR: batch() takes an array of prepared statements');
    }
    try {
      const raws = await this.store.write((db) =>
        statements.map((s) => runStatement(db, splitStatements(s.statement)[0] ?? s.statement, s.params, this.rowIds)),
      );
      return raws.map(asObjects);
    } catch (error) {
      throw d1Error('D1_ERROR', describeFailure(error));
    }
  }

  /**
   * Runs every statement of `query` as one unit, as D1's `exec` does: a failure applies nothing,
   * and D1 reports it against "line 1" with the query's first line whatever statement failed.
   */
  async exec(query: string): Promise<{ count: number; duration: number }> {
    const text = String(query).trim();
    // Each line is its own query to D1, so a line break ends a statement as a semicolon does.
    const statements = text.split('\n').flatMap((line) => splitStatements(line));
    try {
      const metas = await this.store.write((db) => statements.map((statement) => runStatement(db, statement, [], this.rowIds).meta));
      return { count: metas.length, duration: metas.reduce((sum, meta) => sum + meta.duration, 0) };
    } catch (error) {
      throw d1Error('D1_EXEC_ERROR', `Error in line 1: ${text.split('\n')[0]}: ${describeFailure(error)}`);
    }
  }

  /** Sessions pick a replica on D1; locally there is one copy, so a session is the database. */
  withSession(_constraintOrBookmark?: string): { prepare: D1Database['prepare']; batch: D1Database['batch']; getBookmark(): string | null } {
    return { prepare: (q) => this.prepare(q), batch: (s) => this.batch(s), getBookmark: () => null };
  }

  /** The database file (D1's deprecated `dump()`). */
  async dump(): Promise<ArrayBuffer> {
    const image = (await this.store.database()).image();
    return image.buffer.slice(image.byteOffset, image.byteOffset + image.byteLength) as ArrayBuffer;
  }
}
