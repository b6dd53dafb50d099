/** What the admin API's SQL routes (an instance's and a D1 database's `…/query`, `…/execute`) share. */
import type { QueryValue } from '../../core/contract/admin';
import { RouteError } from '../../core/contract/adminRoute';

/** Refuses with 400 and its one-line reason a statement `refusalOf` does not allow (readOnlySql.ts). */
export function refuseStatement(sql: string, refusalOf: (sql: string) => string | undefined): void {
  const refusal = refusalOf(sql);
  if (refusal) throw new RouteError(400, refusal);
}

/** Rows as the admin API answers them: blobs as `{"base64": "…"}`. */
export function answerRows(rows: readonly (readonly unknown[])[]): QueryValue[][] {
  return rows.map((row) => row.map((v) => (v instanceof Uint8Array ? { base64: Buffer.from(v).toString('base64') } : (v as QueryValue))));
}
