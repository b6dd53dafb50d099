/**
 * The SQL console's exports: a result as CSV (RFC 4180) or as JSON (an array of row objects).
 * Values are written as they are, never rewritten for a spreadsheet: blobs as their base64 text,
 * NULL as an empty CSV field and as JSON `null`.
 */
import type { QueryValue } from '../contract/admin';

export interface ResultTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly QueryValue[])[];
}

function text(value: QueryValue): string {
  if (value === null) return '';
  if (typeof value === 'object') return value.base64;
  return String(value);
}

/** One CSV field: quoted when it holds a comma, a quote, a line break or edge spaces; quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The result as CSV: a header line of the column names, then one line per row, CRLF-terminated. */
export function toCsv({ columns, rows }: ResultTable): string {
  const line = (fields: readonly string[]) => `${fields.map(csvField).join(',')}\r\n`;
  return line(columns) + rows.map((row) => line(row.map(text))).join('');
}

/**
 * Column names made unique for JSON keys: `SELECT a, a` would otherwise lose a value, so a repeated
 * name gets `:2`, `:3`…
 */
export function uniqueKeys(columns: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return columns.map((column) => {
    const n = (seen.get(column) ?? 0) + 1;
    seen.set(column, n);
    let key = n === 1 ? column : `${column}:${n}`;
    while (n > 1 && columns.includes(key)) key = `${key}'`;
    return key;
  });
}

/** The result as JSON: an array of `{column: value}` objects, two-space indented. */
export function toJson({ columns, rows }: ResultTable): string {
  const keys = uniqueKeys(columns);
  // Object.fromEntries defines own properties, so a column named __proto__ stays a plain key.
  const objects = rows.map((row) => Object.fromEntries(keys.map((key, i) => [key, row[i] ?? null])));
  return `${JSON.stringify(objects, null, 2)}\n`;
}
