/**
 * The tables of an instance's database and their columns, read through the admin API's read-only
 * query (one SELECT over `sqlite_master` and `pragma_table_info`), for the Agents view's Tables
 * node and the console's `SELECT * FROM "t" LIMIT 100`.
 */
import { bool, count, listOf, shape, text } from './shape';

/** Rows as a query answers them (the admin API's `QueryResult`). */
type Rows = { readonly rows: readonly (readonly unknown[])[] };

export interface ColumnSchema {
  readonly name: string;
  /** The declared type ('' when none was declared). */
  readonly type: string;
  readonly notNull: boolean;
  /** 1-based position in the primary key, 0 when not part of it. */
  readonly pk: number;
}

export interface TableSchema {
  readonly name: string;
  readonly columns: ColumnSchema[];
}

export const readTableSchema = shape<TableSchema>({ name: text, columns: listOf(shape<ColumnSchema>({ name: text, type: text, notNull: bool, pk: count })) });

/** The runtime's own tables (`_hookbench_meta`, `_cf_…`) and SQLite's are left out. */
export const TABLE_SCHEMA_SQL = `SELECT m.name AS tbl, p.name AS col, p.type AS type, p."notnull" AS not_null, p.pk AS pk
FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p
WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.name NOT LIKE '\\_%' ESCAPE '\\'
ORDER BY m.name, p.cid`;

/** The query's rows grouped by table, in name order. */
export function tablesFrom(result: Rows): TableSchema[] {
  const tables = new Map<string, ColumnSchema[]>();
  for (const [table, name, type, notNull, pk] of result.rows) {
    const columns = tables.get(String(table)) ?? [];
    columns.push({ name: String(name), type: String(type ?? ''), notNull: Number(notNull) === 1, pk: Number(pk) });
    tables.set(String(table), columns);
  }
  return [...tables].map(([name, columns]) => ({ name, columns }));
}

/** A quoted SQLite identifier: `"t"`, with inner quotes doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** What clicking a table opens in the console. */
export function browseSql(table: string, limit = 100): string {
  return `SELECT * FROM ${quoteIdentifier(table)} LIMIT ${limit}`;
}
