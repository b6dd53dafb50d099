/**
 * What requests to the admin API carry (docs/admin-api.md): the bodies and query strings of its
 * routes, each with the way a client writes it and the way the server reads it, side by side. The
 * server's answer to one it cannot read is a 400 with the one-line reason given here.
 */
import type { BodyCodec, QueryCodec } from './adminRoute';
import { RouteError } from './adminRoute';
import { MAX_BINDING_PAGE } from './bindings';
import type { InstanceRef } from './instances';
import { parseLockConfirmRequest, type LockConfirmRequest } from './serveLock';

/** A value a query may bind to a `?`. */
export type QueryParam = string | number | null;

/** The body of `POST …/query`: one read-only statement. */
export interface QueryRequest {
  readonly sql: string;
  readonly params?: readonly QueryParam[];
  /** A shorter time limit than the default, never a longer one. */
  readonly timeoutMs?: number;
}

/**
 * The body of `POST …/execute`: one statement, run by the instance itself (the inspector's
 * read-write console). It is first tried on a copy in a worker thread, under the time limit, and
 * refused if it changed what the runtime relies on; then it runs on the live database, so what it
 * changes is journaled and made durable before the answer, as any write of the agent's own.
 */
export type ExecuteRequest = QueryRequest;

/** A statement as the server reads it: its parameters always present, the time limit when asked. */
export interface Statement {
  readonly sql: string;
  readonly params: QueryParam[];
  readonly timeoutMs: number | undefined;
}

/** The body of `POST /__hookbench/instances/details`: the instances to describe, in one request. */
export interface DetailsRequest {
  readonly instances: readonly InstanceRef[];
}

/** At most this many instances per details request (a page of the explorer is 100). */
export const MAX_DETAILS = 500;

const encoder = new TextEncoder();
// A byte order mark is kept, as JSON.parse refuses it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const byteLength = (text: string) => encoder.encode(text).length;

function json<T>(value: T): string {
  return JSON.stringify(value);
}

/** The body's JSON, or a 400 saying what to send instead. */
function parseJson(bytes: Uint8Array, example: string): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    throw new RouteError(400, `the body is not JSON: send ${example}`);
  }
}

/** `{"sql", "params", "timeoutMs"}` of a query or execute; what the statement may do is the server's to check. */
export const statementBody: BodyCodec<QueryRequest, Statement> = {
  format: json,
  parse(bytes) {
    const {
      sql,
      params = [],
      timeoutMs,
    } = (parseJson(bytes, '{"sql": "SELECT …", "params": []}') ?? {}) as { sql?: unknown; params?: unknown; timeoutMs?: unknown };
    if (typeof sql !== 'string' || sql.trim() === '') throw new RouteError(400, '"sql" must be a non-empty string');
    if (!Array.isArray(params) || !params.every((p) => p === null || typeof p === 'string' || typeof p === 'number'))
      throw new RouteError(400, '"params" must be an array of strings, numbers or nulls');
    if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0))
      throw new RouteError(400, '"timeoutMs" must be a positive whole number of milliseconds');
    return { sql, params: params as QueryParam[], timeoutMs: timeoutMs as number | undefined };
  },
};

export const detailsBody: BodyCodec<DetailsRequest, InstanceRef[]> = {
  format: ({ instances }) => json({ instances: instances.map(({ namespace, name }) => ({ namespace, name })) }),
  parse(bytes) {
    const refs = (parseJson(bytes, '{"instances": [{"namespace": "…", "name": "…"}]}') as { instances?: unknown } | null)?.instances;
    if (!Array.isArray(refs) || !refs.every((r) => typeof r?.namespace === 'string' && typeof r?.name === 'string'))
      throw new RouteError(400, '"instances" must be an array of {"namespace", "name"} strings');
    if (refs.length > MAX_DETAILS) throw new RouteError(400, `at most ${MAX_DETAILS} instances per request`);
    return refs as InstanceRef[];
  },
};

export const lockConfirmBody: BodyCodec<LockConfirmRequest, LockConfirmRequest> = {
  format: json,
  parse(bytes) {
    let body: unknown;
    try {
      body = JSON.parse(decoder.decode(bytes));
    } catch {
      body = undefined;
    }
    const request = parseLockConfirmRequest(body);
    if (!request) throw new RouteError(400, 'give {"challenge": "<64 hex digits>"}');
    return request;
  },
};

/** The outbound sink's body: the bytes as they came, captured and never read. */
export const capturedBody: BodyCodec<string | Uint8Array, Uint8Array> = {
  format: (body) => body,
  parse: (bytes) => bytes,
};

/** `?limit=` of the newest-first lists (deliveries, captures): 100 unless a whole number says otherwise, at most 10,000. */
export const newestQuery: QueryCodec<{ readonly limit?: number }, { readonly limit: number }> = {
  format: ({ limit }) => (limit === undefined ? [] : [['limit', String(limit)]]),
  parse(search) {
    const limit = Number(search.get('limit') ?? 100);
    return { limit: Number.isInteger(limit) && limit > 0 ? Math.min(limit, 10_000) : 100 };
  },
};

/** A page of a binding's listing: `?cursor=` from the page before, `?limit=` from 1 to MAX_BINDING_PAGE. */
export interface PageRequest {
  readonly cursor?: string;
  readonly limit?: number;
}

export interface Page {
  readonly cursor: string | undefined;
  readonly limit: number;
}

function pageOf(search: URLSearchParams): Page {
  const raw = search.get('limit');
  const limit = raw === null ? 100 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_BINDING_PAGE)
    throw new RouteError(400, `"limit" must be a whole number from 1 to ${MAX_BINDING_PAGE}`);
  return { cursor: search.get('cursor') || undefined, limit };
}

function pairs(query: Record<string, string | number | undefined>): [string, string][] {
  return Object.entries(query).flatMap(([name, value]) => (value === undefined || value === '' ? [] : [[name, String(value)] as [string, string]]));
}

export const pageQuery: QueryCodec<PageRequest, Page> = {
  format: ({ cursor, limit }) => pairs({ cursor, limit }),
  parse: pageOf,
};

/** A page of keys that start with `?prefix=`, which is at most `maxKeyBytes` as a key is. */
export function prefixPageQuery(maxKeyBytes: number): QueryCodec<PageRequest & { readonly prefix?: string }, Page & { readonly prefix: string | undefined }> {
  return {
    format: ({ prefix, cursor, limit }) => pairs({ prefix, cursor, limit }),
    parse(search) {
      const prefix = search.get('prefix') ?? undefined;
      if (prefix !== undefined && byteLength(prefix) > maxKeyBytes) throw new RouteError(400, `the prefix is longer than ${maxKeyBytes} bytes`);
      return { ...pageOf(search), prefix: prefix || undefined };
    },
  };
}

/**
 * `?key=` of a value or head: present and within the binding's key length. Keys are query
 * parameters, never path segments, so `../x`, `a/b` or `..` is only data.
 */
export function keyQuery(maxKeyBytes: number): QueryCodec<{ readonly key: string }, { readonly key: string }> {
  return {
    format: ({ key }) => pairs({ key }),
    parse(search) {
      const key = search.get('key');
      if (key === null || key === '') throw new RouteError(400, 'give the key as ?key=… (percent-encoded)');
      if (byteLength(key) > maxKeyBytes) throw new RouteError(400, `the key is longer than ${maxKeyBytes} bytes`);
      return { key };
    },
  };
}
