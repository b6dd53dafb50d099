/** The bodies of the admin API's SQL routes (`…/query`, `…/execute`): `{"sql", "params", "timeoutMs"}`, checked. */
import type { QueryParam } from '../../core/contract/admin';
import { HttpError } from './httpError';
import { executeRefusal, readOnlyRefusal } from './readOnlySql';

export interface StatementBody {
  readonly sql: string;
  readonly params: QueryParam[];
  /** A shorter time limit than the admin API's. */
  readonly timeoutMs: number | undefined;
}

/** A read-only query's body: one statement that only reads, its parameters, an optional shorter time limit. */
export function parseQuery(body: Buffer): StatementBody {
  return checked(body, readOnlyRefusal);
}

/** A console write's body: one statement the read-write console may run (readOnlySql.ts says which). */
export function parseExecute(body: Buffer): StatementBody {
  return checked(body, executeRefusal);
}

function checked(body: Buffer, refusalOf: (sql: string) => string | undefined): StatementBody {
  const { sql, params, timeoutMs } = parseStatement(body);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0)) throw new HttpError(400, '"timeoutMs" must be a positive whole number of milliseconds');
  const refusal = refusalOf(sql);
  if (refusal) throw new HttpError(400, refusal);
  return { sql, params, timeoutMs: timeoutMs as number | undefined };
}

/** `{"sql", "params"}` of a query or execute body, checked. */
function parseStatement(body: Buffer): { sql: string; params: QueryParam[]; timeoutMs: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not JSON: send {"sql": "SELECT …", "params": []}');
  }
  const { sql, params = [], timeoutMs } = (parsed ?? {}) as { sql?: unknown; params?: unknown; timeoutMs?: unknown };
  if (typeof sql !== 'string' || sql.trim() === '') throw new HttpError(400, '"sql" must be a non-empty string');
  if (!Array.isArray(params) || !params.every((p) => p === null || typeof p === 'string' || typeof p === 'number')) throw new HttpError(400, '"params" must be an array of strings, numbers or nulls');
  return { sql, params, timeoutMs };
}
