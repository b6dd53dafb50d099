/**
 * The admin API's `/__hookbench/bindings…` routes (docs/admin-api.md, "Bindings"): what a worker's
 * bindings hold, read for the explorer. Everything reads through the bindings' public methods (KV
 * `list`/`getWithMetadata`, R2 `list`/`head`, D1 `dump` into the read-only query runner, the queue
 * broker's `snapshot`, a workflow's `describe`) and never writes; keys come as query parameters, so
 * no key (`../x`, `a/b`, `..`) is ever part of a path.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { QueryResult } from '../../core/contract/admin';
import type { Page, Statement } from '../../core/contract/adminRequests';
import { RouteError } from '../../core/contract/adminRoute';
import {
  BINDING_KINDS,
  type AlarmsPage,
  type BindingSummary,
  type D1Tables,
  type KvKeysPage,
  type KvValue,
  type PendingAlarm,
  type QueueInfo,
  type R2ObjectInfo,
  type R2ObjectsPage,
  type WorkflowInstanceInfo,
  type WorkflowInstancesPage,
} from '../../core/contract/bindings';
import { TABLE_SCHEMA_SQL, tablesFrom } from '../../core/contract/tableSchema';
import type { D1Database } from '../../runtime/bindings/d1';
import type { KvNamespace } from '../../runtime/bindings/kv';
import type { R2Bucket } from '../../runtime/bindings/r2';
import { ALARM_MARKER } from '../../runtime/objects/instanceFolder';
import { encodeName } from '../../runtime/storage/names';
import type { WorkerRuntime } from '../../runtime/worker/workerRuntime';
import type { QueryRunner } from './adminQuery';
import type { AdminHandlers } from './adminRouter';
import { readOnlyRefusal } from './readOnlySql';
import { shownBytes } from './shownBytes';
import { answerRows, refuseStatement } from './sqlRoutes';

export type BindingRoutes = 'bindings' | 'kvKeys' | 'kvValue' | 'd1Tables' | 'd1Query' | 'r2Objects' | 'r2Object' | 'queue' | 'workflowInstances' | 'alarms';

/** A binding's own refusal of the input (`KV GET failed: 400 Illegal key name "..".`) as a 400. */
async function asBadRequest<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    if (error instanceof TypeError || /^KV \w+ failed: 4\d\d |^\w+: .* \(100\d\d\)$/.test(message)) throw new RouteError(400, `${what}: ${message}`);
    throw error;
  }
}

export class BindingsApi {
  constructor(
    private readonly runtime: () => Promise<WorkerRuntime>,
    private readonly queries: QueryRunner,
  ) {}

  readonly handlers: Pick<AdminHandlers, BindingRoutes> = {
    bindings: async () => ({ bindings: this.list(await this.runtime()) }),
    kvKeys: async ({ params, query }) => this.kvKeys(this.kv(await this.runtime(), params.binding), query),
    kvValue: async ({ params, query }) => this.kvValue(this.kv(await this.runtime(), params.binding), query.key),
    d1Tables: async ({ params }) => this.d1Tables(this.d1(await this.runtime(), params.binding)),
    d1Query: async ({ params, body }) => this.d1Query(this.d1(await this.runtime(), params.binding), body),
    r2Objects: async ({ params, query }) => this.r2Objects(this.r2(await this.runtime(), params.binding), query),
    r2Object: async ({ params, query }) => this.r2Head(this.r2(await this.runtime(), params.binding), query.key),
    queue: async ({ params, query }) => this.queue(await this.runtime(), params.queue, query),
    workflowInstances: async ({ params, query }) => this.workflowInstances(await this.runtime(), params.name, query),
    alarms: async ({ params, query }) => this.alarms(await this.runtime(), params.namespace, query),
  };

  private list(runtime: WorkerRuntime): BindingSummary[] {
    return [
      ...runtime.bindings.summaries(),
      ...runtime.workflows.map((w) => ({ kind: 'workflow' as const, name: w.workflowName, target: w.className })),
      ...runtime.namespaces.map((n) => ({ kind: 'durableObject' as const, name: n.binding, target: n.className })),
    ].sort((a, b) => BINDING_KINDS.indexOf(a.kind) - BINDING_KINDS.indexOf(b.kind) || a.name.localeCompare(b.name));
  }

  private kv(runtime: WorkerRuntime, name: string): KvNamespace {
    const found = runtime.bindings.kv.get(name);
    if (!found) throw new RouteError(404, `no KV binding ${name}`);
    return found;
  }

  private d1(runtime: WorkerRuntime, name: string): D1Database {
    const found = runtime.bindings.d1.get(name);
    if (!found) throw new RouteError(404, `no D1 binding ${name}`);
    return found;
  }

  private r2(runtime: WorkerRuntime, name: string): R2Bucket {
    const found = runtime.bindings.r2.get(name);
    if (!found) throw new RouteError(404, `no R2 binding ${name}`);
    return found;
  }

  private async kvKeys(kv: KvNamespace, { prefix, cursor, limit }: Page & { prefix: string | undefined }): Promise<KvKeysPage> {
    const listed = (await asBadRequest('list', () => kv.list({ prefix, cursor, limit }))) as {
      keys: { name: string; expiration?: number; metadata?: unknown }[];
      cursor?: string;
    };
    return { keys: listed.keys, ...(listed.cursor ? { cursor: listed.cursor } : {}) };
  }

  private async kvValue(kv: KvNamespace, key: string): Promise<KvValue> {
    const found = (await asBadRequest('get', () => kv.getWithMetadata(key, 'arrayBuffer'))) as { value: ArrayBuffer | null; metadata: unknown };
    if (found.value === null) throw new RouteError(404, 'no such key (or it has expired)');
    // The expiration is only in a listing: the key itself is the first entry of a listing by its own name.
    const listed = (await kv.list({ prefix: key, limit: 1 })) as { keys: { name: string; expiration?: number }[] };
    const expiration = listed.keys[0]?.name === key ? listed.keys[0].expiration : undefined;
    return {
      key,
      ...shownBytes(new Uint8Array(found.value)),
      ...(expiration !== undefined ? { expiration } : {}),
      ...(found.metadata !== null ? { metadata: found.metadata } : {}),
    };
  }

  private async d1Tables(d1: D1Database): Promise<D1Tables> {
    const result = await this.queries.run({ image: async () => new Uint8Array(await d1.dump()), sql: TABLE_SCHEMA_SQL, params: [] });
    return { tables: tablesFrom({ rows: answerRows(result.rows) }) };
  }

  /** The same path as an instance's `…/query`: the statement must only read, and runs on a copy in a worker thread. */
  private async d1Query(d1: D1Database, { sql, params, timeoutMs }: Statement): Promise<QueryResult> {
    refuseStatement(sql, readOnlyRefusal);
    const result = await this.queries.run({ image: async () => new Uint8Array(await d1.dump()), sql, params, timeoutMs });
    return { columns: result.columns, rows: answerRows(result.rows), ...(result.truncated ? { truncated: true as const } : {}) };
  }

  private async r2Objects(bucket: R2Bucket, { prefix, cursor, limit }: Page & { prefix: string | undefined }): Promise<R2ObjectsPage> {
    const listed = (await asBadRequest('list', () => bucket.list({ prefix, cursor, limit, include: ['httpMetadata', 'customMetadata'] }))) as {
      objects: R2Like[];
      cursor?: string;
    };
    return { objects: listed.objects.map(objectInfo), ...(listed.cursor ? { cursor: listed.cursor } : {}) };
  }

  private async r2Head(bucket: R2Bucket, key: string): Promise<R2ObjectInfo> {
    const object = await asBadRequest('head', () => bucket.head(key));
    if (!object) throw new RouteError(404, 'no such object');
    return objectInfo(object as unknown as R2Like);
  }

  private async queue(runtime: WorkerRuntime, name: string, { cursor, limit }: Page): Promise<QueueInfo> {
    const broker = runtime.bindings.broker;
    if (!broker || !runtime.bindings.summaries().some((b) => b.kind === 'queue' && b.name === name)) throw new RouteError(404, `no queue ${name}`);
    const after = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(after) || after < 0) throw new RouteError(400, '"cursor" is not one this route gave');
    const snapshot = await broker.snapshot(name, limit, after);
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
      messages: snapshot.messages.map((m) => ({
        id: m.id,
        attempts: m.attempts,
        retries: m.attempts - 1,
        sentAt: new Date(m.sentAt).toISOString(),
        visibleAt: new Date(m.visibleAt).toISOString(),
        contentType: m.contentType,
        size: m.size,
      })),
      ...(snapshot.more && last ? { cursor: String(last.seq) } : {}),
    };
  }

  private async workflowInstances(runtime: WorkerRuntime, name: string, asked: Page): Promise<WorkflowInstancesPage> {
    const workflow = runtime.workflows.find((w) => w.workflowName === name);
    if (!workflow) throw new RouteError(404, `no workflow ${name}`);
    const { page, cursor } = pageAfter(workflow.instanceIds(), asked);
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
  private async alarms(runtime: WorkerRuntime, name: string, asked: Page): Promise<AlarmsPage> {
    const namespace = runtime.namespaces.find((n) => n.binding === name);
    if (!namespace) throw new RouteError(404, `no Durable Object namespace ${name}`);
    const marked = namespace.instanceNames().filter((instance) => fs.existsSync(path.join(namespace.directory, encodeName(instance), ALARM_MARKER)));
    const { page, cursor } = pageAfter(marked, asked);
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

/** A page of sorted names after `?cursor=` (the last name of the page before). */
function pageAfter(names: readonly string[], { cursor: after, limit }: Page): { page: string[]; cursor: string | undefined } {
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
  return {
    key: object.key,
    size: object.size,
    etag: object.etag,
    uploaded: object.uploaded.toISOString(),
    httpMetadata: http,
    customMetadata: { ...object.customMetadata },
  };
}
