/**
 * The admin API's `/__hookbench/bindings…` routes (docs/admin-api.md, "Bindings"): what a worker's
 * bindings hold, read for the explorer. Everything reads through the bindings' public methods (KV
 * `list`/`getWithMetadata`, R2 `list`/`head`, D1 `dump` into the read-only query runner, the queue
 * broker's `snapshot`, a workflow's `describe`) and never writes; keys come as query parameters, so
 * no key (`../x`, `a/b`, `..`) is ever part of a path.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AdminRoute, AdminRoutes, QueryValue } from '../../core/contract/admin';
import { BINDING_KINDS, MAX_BINDING_PAGE, type BindingSummary, type PendingAlarm, type R2ObjectInfo, type WorkflowInstanceInfo } from '../../core/contract/bindings';
import { TABLE_SCHEMA_SQL, tablesFrom } from '../../core/contract/tableSchema';
import type { D1Database } from '../../core/runtime/bindings/d1';
import type { KvNamespace } from '../../core/runtime/bindings/kv';
import type { R2Bucket } from '../../core/runtime/bindings/r2';
import { ALARM_MARKER } from '../../core/runtime/objects/instanceHost';
import { encodeName } from '../../core/runtime/storage/names';
import type { WorkerRuntime } from '../../core/runtime/worker/workerRuntime';
import type { QueryRunner } from './adminQuery';
import { decodeSegment, HttpError } from './httpError';
import { shownBytes } from './shownBytes';
import { parseQuery } from './statementBody';

const KV_MAX_KEY_BYTES = 512;
const R2_MAX_KEY_BYTES = 1024;

type Answer<R extends AdminRoute> = AdminRoutes[R];

function pageSize(url: URL): number {
  const raw = url.searchParams.get('limit');
  if (raw === null) return 100;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_BINDING_PAGE) throw new HttpError(400, `"limit" must be a whole number from 1 to ${MAX_BINDING_PAGE}`);
  return limit;
}

/** The `?key=` of a value or head route: present, and within the binding's key length. */
function keyParam(url: URL, maxBytes: number): string {
  const key = url.searchParams.get('key');
  if (key === null || key === '') throw new HttpError(400, 'give the key as ?key=… (percent-encoded)');
  if (Buffer.byteLength(key) > maxBytes) throw new HttpError(400, `the key is longer than ${maxBytes} bytes`);
  return key;
}

function prefixParam(url: URL, maxBytes: number): string | undefined {
  const prefix = url.searchParams.get('prefix') ?? undefined;
  if (prefix !== undefined && Buffer.byteLength(prefix) > maxBytes) throw new HttpError(400, `the prefix is longer than ${maxBytes} bytes`);
  return prefix || undefined;
}

/** A binding's own refusal of the input (`KV GET failed: 400 Illegal key name "..".`) as a 400. */
async function asBadRequest<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    if (error instanceof TypeError || /^KV \w+ failed: 4\d\d |^\w+: .* \(100\d\d\)$/.test(message)) throw new HttpError(400, `${what}: ${message}`);
    throw error;
  }
}

function expectMethod(method: string, wanted: 'GET' | 'POST'): void {
  if (method !== wanted) throw new HttpError(405, wanted);
}

export class BindingsApi {
  constructor(
    private readonly runtime: () => Promise<WorkerRuntime>,
    private readonly queries: QueryRunner,
  ) {}

  /** Answers `rest` (the path after `/__hookbench/bindings/`); the value is the route's 200 body. */
  async handle(method: string, rest: string[], url: URL, body: Buffer): Promise<unknown> {
    const runtime = await this.runtime();
    if (rest.length === 0) {
      expectMethod(method, 'GET');
      return { bindings: this.list(runtime) } satisfies Answer<'GET /__hookbench/bindings'>;
    }
    const [kind, segment, action, ...extra] = rest;
    if (!(BINDING_KINDS as readonly string[]).includes(kind!)) throw new HttpError(404, `no binding kind ${kind}: one of ${BINDING_KINDS.join(', ')}`);
    const name = decodeSegment(segment, 'binding name');
    if (extra.length > 0) throw new HttpError(404, 'no such admin route');
    switch (`${kind}/${action ?? ''}`) {
      case 'kv/keys':
        expectMethod(method, 'GET');
        return this.kvKeys(this.kv(runtime, name), url);
      case 'kv/value':
        expectMethod(method, 'GET');
        return this.kvValue(this.kv(runtime, name), url);
      case 'd1/tables':
        expectMethod(method, 'GET');
        return this.d1Tables(this.d1(runtime, name));
      case 'd1/query':
        expectMethod(method, 'POST');
        return this.d1Query(this.d1(runtime, name), body);
      case 'r2/objects':
        expectMethod(method, 'GET');
        return this.r2Objects(this.r2(runtime, name), url);
      case 'r2/object':
        expectMethod(method, 'GET');
        return this.r2Head(this.r2(runtime, name), url);
      case 'queue/':
        expectMethod(method, 'GET');
        return this.queue(runtime, name, url);
      case 'workflow/instances':
        expectMethod(method, 'GET');
        return this.workflowInstances(runtime, name, url);
      case 'durableObject/alarms':
        expectMethod(method, 'GET');
        return this.alarms(runtime, name, url);
      default:
        throw new HttpError(404, 'no such admin route');
    }
  }

  private list(runtime: WorkerRuntime): BindingSummary[] {
    return [
      ...runtime.bindings.summaries(),
      ...runtime.workflows.map((w) => ({ kind: 'workflow' as const, name: w.workflowName, target: w.className })),
      ...runtime.namespaces.map((n) => ({ kind: 'durableObject' as const, name: n.binding, target: n.className })),
    ].sort((a, b) => BINDING_KINDS.indexOf(a.kind) - BINDING_KINDS.indexOf(b.kind) || a.name.localeCompare(b.name));
  }

  private kv(runtime: WorkerRuntime, name: string): KvNamespace {
    const found = runtime.bindings.kv.get(name);
    if (!found) throw new HttpError(404, `no KV binding ${name}`);
    return found;
  }

  private d1(runtime: WorkerRuntime, name: string): D1Database {
    const found = runtime.bindings.d1.get(name);
    if (!found) throw new HttpError(404, `no D1 binding ${name}`);
    return found;
  }

  private r2(runtime: WorkerRuntime, name: string): R2Bucket {
    const found = runtime.bindings.r2.get(name);
    if (!found) throw new HttpError(404, `no R2 binding ${name}`);
    return found;
  }

  private async kvKeys(kv: KvNamespace, url: URL): Promise<Answer<'GET /__hookbench/bindings/kv/<binding>/keys'>> {
    const limit = pageSize(url);
    const listed = (await asBadRequest('list', () => kv.list({ prefix: prefixParam(url, KV_MAX_KEY_BYTES), cursor: url.searchParams.get('cursor') || undefined, limit }))) as { keys: { name: string; expiration?: number; metadata?: unknown }[]; cursor?: string };
    return { keys: listed.keys, ...(listed.cursor ? { cursor: listed.cursor } : {}) };
  }

  private async kvValue(kv: KvNamespace, url: URL): Promise<Answer<'GET /__hookbench/bindings/kv/<binding>/value'>> {
    const key = keyParam(url, KV_MAX_KEY_BYTES);
    const found = (await asBadRequest('get', () => kv.getWithMetadata(key, 'arrayBuffer'))) as { value: ArrayBuffer | null; metadata: unknown };
    if (found.value === null) throw new HttpError(404, 'no such key (or it has expired)');
    // The expiration is only in a listing: the key itself is the first entry of a listing by its own name.
    const listed = (await kv.list({ prefix: key, limit: 1 })) as { keys: { name: string; expiration?: number }[] };
    const expiration = listed.keys[0]?.name === key ? listed.keys[0].expiration : undefined;
    return { key, ...shownBytes(new Uint8Array(found.value)), ...(expiration !== undefined ? { expiration } : {}), ...(found.metadata !== null ? { metadata: found.metadata } : {}) };
  }

  private async d1Tables(d1: D1Database): Promise<Answer<'GET /__hookbench/bindings/d1/<binding>/tables'>> {
    const result = await this.queries.run({ image: async () => new Uint8Array(await d1.dump()), sql: TABLE_SCHEMA_SQL, params: [] });
    return { tables: tablesFrom({ rows: queryRows(result.rows) }) };
  }

  /** The same path as an instance's `…/query`: the statement must only read, and runs on a copy in a worker thread. */
  private async d1Query(d1: D1Database, body: Buffer): Promise<Answer<'POST /__hookbench/bindings/d1/<binding>/query'>> {
    const { sql, params, timeoutMs } = parseQuery(body);
    const result = await this.queries.run({ image: async () => new Uint8Array(await d1.dump()), sql, params, timeoutMs });
    return { columns: result.columns, rows: queryRows(result.rows), ...(result.truncated ? { truncated: true as const } : {}) };
  }

  private async r2Objects(bucket: R2Bucket, url: URL): Promise<Answer<'GET /__hookbench/bindings/r2/<binding>/objects'>> {
    const limit = pageSize(url);
    const listed = (await asBadRequest('list', () =>
      bucket.list({ prefix: prefixParam(url, R2_MAX_KEY_BYTES), cursor: url.searchParams.get('cursor') || undefined, limit, include: ['httpMetadata', 'customMetadata'] }),
    )) as { objects: R2Like[]; cursor?: string };
    return { objects: listed.objects.map(objectInfo), ...(listed.cursor ? { cursor: listed.cursor } : {}) };
  }

  private async r2Head(bucket: R2Bucket, url: URL): Promise<Answer<'GET /__hookbench/bindings/r2/<binding>/object'>> {
    const key = keyParam(url, R2_MAX_KEY_BYTES);
    const object = await asBadRequest('head', () => bucket.head(key));
    if (!object) throw new HttpError(404, 'no such object');
    return objectInfo(object as unknown as R2Like);
  }

  private async queue(runtime: WorkerRuntime, name: string, url: URL): Promise<Answer<'GET /__hookbench/bindings/queue/<queue>'>> {
    const broker = runtime.bindings.broker;
    if (!broker || !runtime.bindings.summaries().some((b) => b.kind === 'queue' && b.name === name)) throw new HttpError(404, `no queue ${name}`);
    const cursor = url.searchParams.get('cursor');
    const after = cursor === null || cursor === '' ? 0 : Number(cursor);
    if (!Number.isSafeInteger(after) || after < 0) throw new HttpError(400, '"cursor" is not one this route gave');
    const snapshot = await broker.snapshot(name, pageSize(url), after);
    const last = snapshot.messages[snapshot.messages.length - 1];
    return {
      queue: name,
      backlog: snapshot.backlog,
      delayed: snapshot.delayed,
      inFlight: snapshot.inFlight,
      retried: snapshot.retried,
      ...(snapshot.consumer?.deadLetterQueue ? { deadLetterQueue: snapshot.consumer.deadLetterQueue } : {}),
      deadLettered: snapshot.deadLettered,
      consumed: snapshot.consumer !== undefined,
      messages: snapshot.messages.map((m) => ({ id: m.id, attempts: m.attempts, retries: m.attempts - 1, sentAt: new Date(m.sentAt).toISOString(), visibleAt: new Date(m.visibleAt).toISOString(), contentType: m.contentType, size: m.size })),
      ...(snapshot.more && last ? { cursor: String(last.seq) } : {}),
    };
  }

  private async workflowInstances(runtime: WorkerRuntime, name: string, url: URL): Promise<Answer<'GET /__hookbench/bindings/workflow/<name>/instances'>> {
    const workflow = runtime.workflows.find((w) => w.workflowName === name);
    if (!workflow) throw new HttpError(404, `no workflow ${name}`);
    const { page, cursor } = pageAfter(workflow.instanceIds(), url);
    const instances: WorkflowInstanceInfo[] = [];
    for (const id of page) {
      const described = await workflow.describe(id);
      if (described) instances.push({ id, status: described.status, ...(described.error ? { error: described.error } : {}), steps: described.steps });
    }
    return { instances, ...(cursor ? { cursor } : {}) };
  }

  /**
   * Instances of a Durable Object namespace with an alarm set. Only instances marked as having had
   * one are read (the marker a restart wakes them by); reading one wakes it, as any inspection does.
   */
  private async alarms(runtime: WorkerRuntime, name: string, url: URL): Promise<Answer<'GET /__hookbench/bindings/durableObject/<namespace>/alarms'>> {
    const namespace = runtime.namespaces.find((n) => n.binding === name);
    if (!namespace) throw new HttpError(404, `no Durable Object namespace ${name}`);
    const marked = namespace.instanceNames().filter((instance) => fs.existsSync(path.join(namespace.directory, encodeName(instance), ALARM_MARKER)));
    const { page, cursor } = pageAfter(marked, url);
    const alarms: PendingAlarm[] = [];
    for (const instance of page) {
      const time = await namespace.host(instance).inspect((db) => {
        const exists = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_cf_ALARM'").rows.length > 0;
        return exists ? db.exec('SELECT time FROM _cf_ALARM WHERE id = 1').rows[0]?.[0] : undefined;
      });
      if (typeof time === 'number') alarms.push({ name: instance, time: new Date(time).toISOString() });
    }
    return { alarms, ...(cursor ? { cursor } : {}) };
  }
}

/** Rows as the admin API answers them: blobs as `{"base64": "…"}`. */
function queryRows(rows: readonly (readonly unknown[])[]): QueryValue[][] {
  return rows.map((row) => row.map((v) => (v instanceof Uint8Array ? { base64: Buffer.from(v).toString('base64') } : (v as QueryValue))));
}

/** A page of sorted names after `?cursor=` (the last name of the page before). */
function pageAfter(names: readonly string[], url: URL): { page: string[]; cursor: string | undefined } {
  const limit = pageSize(url);
  const after = url.searchParams.get('cursor');
  const rest = after ? names.filter((n) => n > after) : [...names];
  const page = rest.slice(0, limit);
  return { page, cursor: rest.length > limit ? page[page.length - 1] : undefined };
}

interface R2Like {
  readonly key: string;
  readonly size: number;
  readonly etag: string;
  readonly uploaded: Date;
  readonly httpMetadata: Record<string, unknown>;
  readonly customMetadata: Record<string, string>;
}

function objectInfo(object: R2Like): R2ObjectInfo {
  const http = Object.fromEntries(Object.entries(object.httpMetadata).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : String(v)]));
  return { key: object.key, size: object.size, etag: object.etag, uploaded: object.uploaded.toISOString(), httpMetadata: http, customMetadata: { ...object.customMetadata } };
}
