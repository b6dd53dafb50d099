/**
 * The admin API (docs/admin-api.md): every route and what it answers, declared once
 * for the serve process that answers and the extension that asks. A unit test checks the doc
 * names exactly the routes and live messages declared here.
 */
import type { AlarmsPage, BindingSummary, D1Tables, KvKeysPage, KvValue, QueueInfo, R2ObjectInfo, R2ObjectsPage, WorkflowInstancesPage } from './bindings';
import type { DeliveryRecord, DeliverySummary } from './deliveries';
import type { InstanceDetails, InstanceRef, InstanceSummary } from './instances';
import type { CaptureList, SinkReceipt } from './sink';
import type { LockConfirmAnswer } from './serveLock';

/** Where the admin API answers, on the receiver's address. */
export const ADMIN_PREFIX = '/__hookbench/';

/** Every error answer, with its status. */
export interface AdminError {
  readonly error: string;
}

/** The body of `POST /__hookbench/instances/details`: the instances to describe, in one request. */
export interface DetailsRequest {
  readonly instances: readonly InstanceRef[];
}

/** At most this many instances per details request (a page of the explorer is 100). */
export const MAX_DETAILS = 500;

/** A value of a query's result: blobs come as `{"base64": "…"}`. */
export type QueryValue = string | number | null | { readonly base64: string };
/** A value a query may bind to a `?`. */
export type QueryParam = string | number | null;

/** The body of `POST …/query`: one read-only statement. */
export interface QueryRequest {
  readonly sql: string;
  readonly params?: readonly QueryParam[];
  /** A shorter time limit than the default, never a longer one. */
  readonly timeoutMs?: number;
}

export interface QueryResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly QueryValue[])[];
  /** Present when the row cap cut the result. */
  readonly truncated?: true;
}

/**
 * The body of `POST …/execute`: one statement, run by the instance itself (the inspector's
 * read-write console). It is first tried on a copy in a worker thread, under the time limit, and
 * refused if it changed what the runtime relies on; then it runs on the live database, so what it
 * changes is journaled and made durable before the answer, as any write of the agent's own.
 */
export interface ExecuteRequest {
  readonly sql: string;
  readonly params?: readonly QueryParam[];
  /** A shorter time limit than the default, never a longer one. */
  readonly timeoutMs?: number;
}

export interface ExecuteResult extends QueryResult {
  /** Rows inserted, updated or deleted by the statement (0 for DDL and reads). */
  readonly rowsWritten: number;
}

/** One delivery with its request body as UTF-8 text and as the exact bytes. */
export type DeliveryDetails = Omit<DeliveryRecord, 'requestBody'> & { readonly requestBody: string; readonly requestBodyBase64: string };

/**
 * What each route answers with 200, keyed by its method and path as docs/admin-api.md names them
 * (`<namespace>`, `<name>`, `<id>` are percent-encoded segments).
 */
export interface AdminRoutes {
  'GET /__hookbench/instances': { readonly instances: InstanceSummary[] };
  'POST /__hookbench/instances/details': { readonly instances: InstanceDetails[] };
  'GET /__hookbench/instances/<namespace>/<name>': InstanceDetails;
  'DELETE /__hookbench/instances/<namespace>/<name>': { readonly deleted: true; readonly namespace: string; readonly name: string };
  'DELETE /__hookbench/instances/<namespace>/<name>/events': { readonly deleted: number };
  'POST /__hookbench/instances/<namespace>/<name>/query': QueryResult;
  'POST /__hookbench/instances/<namespace>/<name>/execute': ExecuteResult;
  'GET /__hookbench/deliveries': { readonly deliveries: DeliverySummary[] };
  'GET /__hookbench/deliveries/<id>': DeliveryDetails;
  'POST /__hookbench/sink/<name>': SinkReceipt;
  'GET /__hookbench/sink/<name>': CaptureList;
  'GET /__hookbench/sink': CaptureList;
  'GET /__hookbench/bindings': { readonly bindings: BindingSummary[] };
  'GET /__hookbench/bindings/kv/<binding>/keys': KvKeysPage;
  'GET /__hookbench/bindings/kv/<binding>/value': KvValue;
  'GET /__hookbench/bindings/d1/<binding>/tables': D1Tables;
  'POST /__hookbench/bindings/d1/<binding>/query': QueryResult;
  'GET /__hookbench/bindings/r2/<binding>/objects': R2ObjectsPage;
  'GET /__hookbench/bindings/r2/<binding>/object': R2ObjectInfo;
  'GET /__hookbench/bindings/queue/<queue>': QueueInfo;
  'GET /__hookbench/bindings/workflow/<name>/instances': WorkflowInstancesPage;
  'GET /__hookbench/bindings/durableObject/<namespace>/alarms': AlarmsPage;
  'POST /__hookbench/lock/confirm': LockConfirmAnswer;
}

export type AdminRoute = keyof AdminRoutes;

/** The routes as values, for the doc check; the type below fails to compile when one is missing. */
export const ADMIN_ROUTES = [
  'GET /__hookbench/instances',
  'POST /__hookbench/instances/details',
  'GET /__hookbench/instances/<namespace>/<name>',
  'DELETE /__hookbench/instances/<namespace>/<name>',
  'DELETE /__hookbench/instances/<namespace>/<name>/events',
  'POST /__hookbench/instances/<namespace>/<name>/query',
  'POST /__hookbench/instances/<namespace>/<name>/execute',
  'GET /__hookbench/deliveries',
  'GET /__hookbench/deliveries/<id>',
  'POST /__hookbench/sink/<name>',
  'GET /__hookbench/sink/<name>',
  'GET /__hookbench/sink',
  'GET /__hookbench/bindings',
  'GET /__hookbench/bindings/kv/<binding>/keys',
  'GET /__hookbench/bindings/kv/<binding>/value',
  'GET /__hookbench/bindings/d1/<binding>/tables',
  'POST /__hookbench/bindings/d1/<binding>/query',
  'GET /__hookbench/bindings/r2/<binding>/objects',
  'GET /__hookbench/bindings/r2/<binding>/object',
  'GET /__hookbench/bindings/queue/<queue>',
  'GET /__hookbench/bindings/workflow/<name>/instances',
  'GET /__hookbench/bindings/durableObject/<namespace>/alarms',
  'POST /__hookbench/lock/confirm',
] as const satisfies readonly AdminRoute[];

type Exhaustive<Missing extends never> = Missing;
export type AdminRoutesListed = Exhaustive<Exclude<AdminRoute, (typeof ADMIN_ROUTES)[number]>>;
