/**
 * `ctx.storage.sql` of a SQLite-backed Durable Object: `exec(query, ...bindings)` returns a cursor
 * with `toArray`, `one`, `raw`, `columnNames`, `rowsRead`, `rowsWritten`, and iteration.
 */
import type { DurableDatabase } from '../storage/durableDatabase';
import type { SqlValue } from '../storage/journal';

export type SqlStorageValue = ArrayBuffer | string | number | null;

function toSqlValue(value: unknown): SqlValue {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`Cannot bind a value of type ${value === undefined ? 'undefined' : typeof value} to SQL`);
}

/** Blobs come back as ArrayBuffer, as on Cloudflare. */
function fromSqlValue(value: SqlValue): SqlStorageValue {
  if (value instanceof Uint8Array) return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) as ArrayBuffer;
  return value;
}

export class SqlStorageCursor<T extends Record<string, SqlStorageValue> = Record<string, SqlStorageValue>> implements IterableIterator<T> {
  private index = 0;
  readonly rowsRead: number;

  constructor(
    readonly columnNames: string[],
    private readonly rows: SqlStorageValue[][],
    readonly rowsWritten: number,
  ) {
    this.rowsRead = rows.length;
  }

  private object(row: SqlStorageValue[]): T {
    const out: Record<string, SqlStorageValue> = {};
    this.columnNames.forEach((name, i) => (out[name] = row[i]!));
    return out as T;
  }

  next(): IteratorResult<T> {
    if (this.index >= this.rows.length) return { done: true, value: undefined };
    return { done: false, value: this.object(this.rows[this.index++]!) };
  }

  [Symbol.iterator](): this {
    return this;
  }

  toArray(): T[] {
    const rest = this.rows.slice(this.index).map((row) => this.object(row));
    this.index = this.rows.length;
    return rest;
  }

  /** Exactly one row, or an error, as on Cloudflare. */
  one(): T {
    const rest = this.toArray();
    if (rest.length !== 1)
      throw new Error(
        rest.length === 0
          ? 'Expected exactly one result from SQL query, but got no results.'
          : 'Expected exactly one result from SQL query, but got multiple results.',
      );
    return rest[0]!;
  }

  /** Rows as arrays of values. */
  *raw<R extends SqlStorageValue[] = SqlStorageValue[]>(): IterableIterator<R> {
    while (this.index < this.rows.length) yield this.rows[this.index++] as R;
  }
}

export class SqlStorage {
  constructor(private readonly db: DurableDatabase) {}

  exec<T extends Record<string, SqlStorageValue> = Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T> {
    let result;
    try {
      result = this.db.exec(query, bindings.map(toSqlValue));
    } catch (error) {
      throw withSqliteCode(error);
    }
    return new SqlStorageCursor<T>(
      result.columns,
      result.rows.map((row) => row.map(fromSqlValue)),
      result.rowsWritten,
    );
  }

  get databaseSize(): number {
    const pages = this.db.exec('PRAGMA page_count').rows[0]?.[0];
    const size = this.db.exec('PRAGMA page_size').rows[0]?.[0];
    return Number(pages) * Number(size);
  }
}

/** workerd ends SQLite's message with the result code's name (`no such table: x: SQLITE_ERROR`). */
function withSqliteCode(error: unknown): unknown {
  if (!(error instanceof Error) || /: SQLITE_[A-Z_]+$/.test(error.message) || error.constructor !== Error) return error;
  const code = /constraint failed/i.test(error.message) ? 'SQLITE_CONSTRAINT' : /too big|too large/i.test(error.message) ? 'SQLITE_TOOBIG' : 'SQLITE_ERROR';
  error.message = `${error.message}: ${code}`;
  return error;
}
