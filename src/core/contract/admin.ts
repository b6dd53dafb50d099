/**
 * The admin API (docs/admin-api.md): its route table, declared once for the serve process that
 * dispatches from it and the clients that call it (the extension's AdminClient, a lock's checker).
 * Each route says its method, its path pattern, who may call it, how its query and body are read
 * (adminRequests.ts) and what it answers; adding a route is one entry here, its handler and its
 * call (docs/admin-api.md, "Adding a route"). A unit test checks the doc names exactly the routes
 * and live messages declared here. Each answer is declared by its reader (shape.ts), which types
 * the server's handler and which the client applies on arrival.
 */
import { answers, matchPattern, routeLabel, type AnyRoute, type HttpRoute, type RouteAnswer, type RouteLabel } from './adminRoute';
import { capturedBody, detailsBody, keyQuery, lockConfirmBody, newestQuery, pageQuery, prefixPageQuery, statementBody } from './adminRequests';
import {
  KV_MAX_KEY_BYTES,
  R2_MAX_KEY_BYTES,
  readAlarmsPage,
  readBindingSummary,
  readD1Tables,
  readKvKeysPage,
  readKvValue,
  readQueueInfo,
  readR2ObjectInfo,
  readR2ObjectsPage,
  readWorkflowInstancesPage,
} from './bindings';
import { DELIVERY_FIELDS, readDeliverySummary, type DeliveryRecord } from './deliveries';
import { readInstanceDetails, readInstanceSummary } from './instances';
import { readLiveMessage } from './live';
import { readCaptureList, readSinkReceipt } from './sink';
import { readLockConfirmAnswer } from './serveLock';
import { count, listOf, number, oneOf, optional, shape, ShapeError, stepInto, text, type Reader } from './shape';

export type { DetailsRequest, ExecuteRequest, QueryParam, QueryRequest } from './adminRequests';
export { MAX_DETAILS } from './adminRequests';

/** Where the admin API answers, on the receiver's address. */
export const ADMIN_PREFIX = '/__hookbench/';

/** Every error answer, with its status. */
export interface AdminError {
  readonly error: string;
}

/** The error line of an answer that is not a 200, when it is an AdminError. */
export function adminErrorOf(body: unknown): string | undefined {
  const error = (body as Partial<AdminError> | null)?.error;
  return typeof error === 'string' ? error : undefined;
}

/** A value of a query's result: blobs come as `{"base64": "…"}`. */
export type QueryValue = string | number | null | { readonly base64: string };
export interface QueryResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly QueryValue[])[];
  /** Present when the row cap cut the result. */
  readonly truncated?: true;
}

const readBlob = shape<{ readonly base64: string }>({ base64: text });
const readQueryValue: Reader<QueryValue> = (value) => {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'object') return readBlob(value);
  return number(value);
};
const QUERY_FIELDS = { columns: listOf(text), rows: listOf(listOf(readQueryValue)), truncated: optional(oneOf(true)) } as const;
const readQueryResult = shape<QueryResult>(QUERY_FIELDS);

export interface ExecuteResult extends QueryResult {
  /** Rows inserted, updated or deleted by the statement (0 for DDL and reads). */
  readonly rowsWritten: number;
}

const readExecuteResult = shape<ExecuteResult>({ ...QUERY_FIELDS, rowsWritten: count });

/** One delivery with its request body as UTF-8 text and as the exact bytes. */
export type DeliveryDetails = Omit<DeliveryRecord, 'requestBody'> & { readonly requestBody: string; readonly requestBodyBase64: string };

const readDeliveryDetails = shape<DeliveryDetails>({ ...DELIVERY_FIELDS, requestBody: text, requestBodyBase64: text, responseBody: text });

/** `{"<key>": [ … ]}`: a list under one name, each item read by `item`. */
function listUnder<K extends string, T>(key: K, item: Reader<T>): Reader<{ readonly [k in K]: T[] }> {
  const list = listOf(item);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ShapeError('an object', value);
    return { [key]: stepInto(`.${key}`, () => list((value as Record<string, unknown>)[key])) } as { readonly [k in K]: T[] };
  };
}

/**
 * Every route of the admin API. `<name>` in a pattern is one percent-encoded path segment; the
 * server matches patterns in this order (`matchPattern`), the client builds paths from them
 * (`routePath`). Auth is `AdminAuth` (adminRoute.ts): the admin token unless said otherwise.
 */
export const ADMIN_API = {
  instances: { method: 'GET', pattern: '/__hookbench/instances', auth: 'token', answer: answers(listUnder('instances', readInstanceSummary)) },
  details: {
    method: 'POST',
    pattern: '/__hookbench/instances/details',
    auth: 'token',
    body: detailsBody,
    answer: answers(listUnder('instances', readInstanceDetails)),
  },
  instance: { method: 'GET', pattern: '/__hookbench/instances/<namespace>/<name>', auth: 'token', answer: answers(readInstanceDetails) },
  deleteInstance: {
    method: 'DELETE',
    pattern: '/__hookbench/instances/<namespace>/<name>',
    auth: 'token',
    answer: answers(
      shape<{ readonly deleted: true; readonly namespace: string; readonly name: string }>({ deleted: oneOf(true), namespace: text, name: text }),
    ),
  },
  clearEvents: {
    method: 'DELETE',
    pattern: '/__hookbench/instances/<namespace>/<name>/events',
    auth: 'token',
    answer: answers(shape<{ readonly deleted: number }>({ deleted: count })),
  },
  query: { method: 'POST', pattern: '/__hookbench/instances/<namespace>/<name>/query', auth: 'token', body: statementBody, answer: answers(readQueryResult) },
  execute: {
    method: 'POST',
    pattern: '/__hookbench/instances/<namespace>/<name>/execute',
    auth: 'token',
    body: statementBody,
    answer: answers(readExecuteResult),
  },
  deliveries: {
    method: 'GET',
    pattern: '/__hookbench/deliveries',
    auth: 'token',
    query: newestQuery,
    answer: answers(listUnder('deliveries', readDeliverySummary)),
  },
  delivery: { method: 'GET', pattern: '/__hookbench/deliveries/<id>', auth: 'token', answer: answers(readDeliveryDetails) },
  capture: { method: 'POST', pattern: '/__hookbench/sink/<name>', auth: 'owner', body: capturedBody, answer: answers(readSinkReceipt) },
  sinkCaptures: { method: 'GET', pattern: '/__hookbench/sink/<name>', auth: 'token', query: newestQuery, answer: answers(readCaptureList) },
  captures: { method: 'GET', pattern: '/__hookbench/sink', auth: 'token', query: newestQuery, answer: answers(readCaptureList) },
  bindings: { method: 'GET', pattern: '/__hookbench/bindings', auth: 'token', answer: answers(listUnder('bindings', readBindingSummary)) },
  kvKeys: {
    method: 'GET',
    pattern: '/__hookbench/bindings/kv/<binding>/keys',
    auth: 'token',
    query: prefixPageQuery(KV_MAX_KEY_BYTES),
    answer: answers(readKvKeysPage),
  },
  kvValue: {
    method: 'GET',
    pattern: '/__hookbench/bindings/kv/<binding>/value',
    auth: 'token',
    query: keyQuery(KV_MAX_KEY_BYTES),
    answer: answers(readKvValue),
  },
  d1Tables: { method: 'GET', pattern: '/__hookbench/bindings/d1/<binding>/tables', auth: 'token', answer: answers(readD1Tables) },
  d1Query: { method: 'POST', pattern: '/__hookbench/bindings/d1/<binding>/query', auth: 'token', body: statementBody, answer: answers(readQueryResult) },
  r2Objects: {
    method: 'GET',
    pattern: '/__hookbench/bindings/r2/<binding>/objects',
    auth: 'token',
    query: prefixPageQuery(R2_MAX_KEY_BYTES),
    answer: answers(readR2ObjectsPage),
  },
  r2Object: {
    method: 'GET',
    pattern: '/__hookbench/bindings/r2/<binding>/object',
    auth: 'token',
    query: keyQuery(R2_MAX_KEY_BYTES),
    answer: answers(readR2ObjectInfo),
  },
  queue: { method: 'GET', pattern: '/__hookbench/bindings/queue/<queue>', auth: 'token', query: pageQuery, answer: answers(readQueueInfo) },
  workflowInstances: {
    method: 'GET',
    pattern: '/__hookbench/bindings/workflow/<name>/instances',
    auth: 'token',
    query: pageQuery,
    answer: answers(readWorkflowInstancesPage),
  },
  alarms: {
    method: 'GET',
    pattern: '/__hookbench/bindings/durableObject/<namespace>/alarms',
    auth: 'token',
    query: pageQuery,
    answer: answers(readAlarmsPage),
  },
  lockConfirm: { method: 'POST', pattern: '/__hookbench/lock/confirm', auth: 'none', body: lockConfirmBody, answer: answers(readLockConfirmAnswer) },
  live: { kind: 'websocket', pattern: '/__hookbench/live', auth: 'token', messages: answers(readLiveMessage) },
} as const satisfies Record<string, AnyRoute>;

export type AdminApiTable = typeof ADMIN_API;
/** The routes answered over HTTP (all but the live feed), by their name in the table. */
export type AdminHttpRouteName = { [K in keyof AdminApiTable]: AdminApiTable[K] extends HttpRoute ? K : never }[keyof AdminApiTable];

/** A route as docs/admin-api.md names it: `GET /__hookbench/instances/<namespace>/<name>`. */
export type AdminRoute = { [K in AdminHttpRouteName]: RouteLabel<AdminApiTable[K]> }[AdminHttpRouteName];
/** What each route answers with 200, by its label. */
export type AdminRoutes = { [K in AdminHttpRouteName as RouteLabel<AdminApiTable[K]>]: RouteAnswer<AdminApiTable[K]> };

/** The HTTP routes' labels, for the doc check. */
export const ADMIN_ROUTES: readonly AdminRoute[] = Object.values(ADMIN_API).flatMap((route: AnyRoute) =>
  'method' in route ? [routeLabel(route) as AdminRoute] : [],
);

/** A route whose pattern a path has, with its named segments as they came (still percent-encoded). */
export interface AdminRouteMatch {
  readonly name: keyof AdminApiTable;
  readonly route: AnyRoute;
  readonly segments: Record<string, string>;
}

/** Every route whose pattern `pathname` has, in the table's order: one per method the path allows. */
export function adminRoutesAt(pathname: string): AdminRouteMatch[] {
  return (Object.keys(ADMIN_API) as (keyof AdminApiTable)[]).flatMap((name) => {
    const segments = matchPattern(ADMIN_API[name].pattern, pathname);
    return segments ? [{ name, route: ADMIN_API[name], segments }] : [];
  });
}
