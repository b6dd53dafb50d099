/**
 * The admin API under /__hookbench/: instances, deliveries, read-only queries, the live feed,
 * the outbound sink, and the data folder lock's proof. Everything but
 * `POST /__hookbench/sink/<name>` and `POST /__hookbench/lock/confirm` needs
 * `Authorization: Bearer <admin token>` (or `?token=` for the live WebSocket, which browsers
 * cannot give headers); with no token configured those routes answer 403. Shapes: docs/admin-api.md.
 */
import type * as http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ADMIN_PREFIX, MAX_DETAILS, type AdminRoute, type AdminRoutes } from '../../core/contract/admin';
import type { InstanceDetails, InstanceEvent, InstanceRef, InstanceSummary } from '../../core/contract/instances';
import { instanceMessage, LIVE_PATH, type LiveMessage } from '../../core/contract/live';
import type { Emitter } from '../../core/events';
import type { Logger } from '../../core/log';
import type { InstanceHost } from '../../core/runtime/objects/instanceHost';
import type { DurableObjectNamespace } from '../../core/runtime/objects/namespace';
import { camelCaseToKebabCase } from '../../core/contract/agentsProtocol';
import { AGENT_STATE_ROW_ID, AGENT_STATE_SELECT, AGENT_STATE_TABLE, EVENTS_CLEAR, EVENTS_TABLE, stateFromText } from '../../core/contract/tables';
import type { WorkerRuntime } from '../../core/runtime/worker/workerRuntime';
import { safeEqualText } from '../../core/signing/crypto';
import { QueryError, QueryRunner, type QueryOptions } from './adminQuery';
import { BindingsApi } from './bindingsApi';
import { decodeSegment, HttpError } from './httpError';
import type { DeliveryLog } from '../deliveryLog';
import { parseExecute, parseQuery } from './statementBody';
import { CaptureTooLargeError, type Sink } from '../sink';
import type { DataLock } from '../dataLock';
import { parseLockConfirmRequest } from '../../core/contract/serveLock';

export interface AdminDeps {
  readonly token: string | undefined;
  readonly runtime: () => Promise<WorkerRuntime>;
  readonly deliveries: DeliveryLog;
  readonly sink: Sink;
  readonly instanceEvents: Emitter<InstanceEvent>;
  readonly logger: Logger;
  /** The data folder's lock, whose holder this process proves to be (`POST /__hookbench/lock/confirm`). */
  readonly lock?: Pick<DataLock, 'confirm'>;
  /** Limits of the read-only queries (time, rows, memory); the defaults suit serve. */
  readonly query?: QueryOptions;
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/** A route's 200 answer, typed by the contract. */
function answer<R extends AdminRoute>(res: http.ServerResponse, _route: R, value: AdminRoutes[R]): void {
  json(res, 200, value);
}

const decode = decodeSegment;

export class AdminApi {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly queries: QueryRunner;
  private readonly bindings: BindingsApi;

  constructor(private readonly deps: AdminDeps) {
    this.queries = new QueryRunner(deps.query);
    this.bindings = new BindingsApi(deps.runtime, this.queries);
  }

  handles(pathname: string): boolean {
    return pathname.startsWith(ADMIN_PREFIX);
  }

  /**
   * The most body bytes a request to `pathname` may send, when a route allows less than the
   * receiver does: a capture is refused over the sink's per-capture cap by its Content-Length
   * before it is read, or as soon as it grows past the cap while it is read.
   */
  bodyLimit(method: string | undefined, pathname: string): number | undefined {
    const sink = pathname === `${ADMIN_PREFIX}sink` || pathname.startsWith(`${ADMIN_PREFIX}sink/`);
    return method === 'POST' && sink ? this.deps.sink.limits.maxCaptureBytes : undefined;
  }

  /** Answers a request whose body went over its limit: 413 with the one-line reason, which it returns. */
  refuseBody(res: http.ServerResponse, method: string | undefined, pathname: string, limit: number, declared: number | undefined): string {
    const reason = this.bodyLimit(method, pathname) !== undefined ? new CaptureTooLargeError(limit, declared).message : `the request body is over ${limit} bytes`;
    json(res, 413, { error: reason });
    return reason;
  }

  private authorized(req: http.IncomingMessage, url: URL): boolean {
    const { token } = this.deps;
    if (!token) throw new HttpError(403, 'the admin API is off: start serve with --admin-token or HOOKBENCH_ADMIN_TOKEN');
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : (url.searchParams.get('token') ?? '');
    return safeEqualText(given, token);
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer): Promise<void> {
    try {
      const [, , area, ...rest] = url.pathname.split('/');
      if (area === 'sink' && req.method === 'POST') return await this.capture(req, res, decode(rest[0], 'sink name'), body);
      // No token: a checker (another VS Code window, a second serve) has none, and the answer is
      // worth something only to whoever can read the lock's nonce (docs/security.md).
      if (area === 'lock' && rest.length === 1 && rest[0] === 'confirm') return this.confirmLock(req, res, body);
      if (!this.authorized(req, url)) throw new HttpError(401, 'missing or wrong admin token');
      switch (area) {
        case 'instances':
          return await this.instances(req, res, rest, body);
        case 'deliveries':
          return this.deliveries(req, res, url, rest);
        case 'bindings':
          return json(res, 200, await this.bindings.handle(req.method ?? 'GET', rest, url, body));
        case 'sink':
          if (req.method !== 'GET') throw new HttpError(405, 'GET or POST');
          return answer(res, 'GET /__hookbench/sink/<name>', this.deps.sink.list(rest[0] === undefined ? undefined : decode(rest[0], 'sink name'), limitOf(url)));
        default:
          throw new HttpError(404, `no admin route ${url.pathname}`);
      }
    } catch (error) {
      if (error instanceof HttpError || error instanceof QueryError || error instanceof CaptureTooLargeError) return json(res, error.status, { error: error.message });
      this.deps.logger.error(`[admin] ${req.method} ${url.pathname}: ${(error as Error)?.stack ?? String(error)}`);
      json(res, 500, { error: (error as Error)?.message ?? String(error) });
    }
  }

  private confirmLock(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    if (req.method !== 'POST') throw new HttpError(405, 'POST');
    if (!this.deps.lock) throw new HttpError(404, 'this server holds no data folder lock');
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      json = undefined;
    }
    const request = parseLockConfirmRequest(json);
    if (!request) throw new HttpError(400, 'give {"challenge": "<64 hex digits>"}');
    answer(res, 'POST /__hookbench/lock/confirm', this.deps.lock.confirm(request.challenge));
  }

  private async capture(req: http.IncomingMessage, res: http.ServerResponse, name: string, body: Buffer): Promise<void> {
    const headers: Record<string, string> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i]!] = req.rawHeaders[i + 1]!;
    const capture = await this.deps.sink.capture(name, headers, body);
    answer(res, 'POST /__hookbench/sink/<name>', { received: true, id: capture.id, verification: capture.verification });
  }

  private async namespace(segment: string | undefined): Promise<DurableObjectNamespace> {
    const wanted = decode(segment, 'namespace');
    const runtime = await this.deps.runtime();
    const found = runtime.namespaces.find((n) => n.binding === wanted || camelCaseToKebabCase(n.binding) === wanted);
    if (!found) throw new HttpError(404, `no namespace ${wanted}`);
    return found;
  }

  private async instances(req: http.IncomingMessage, res: http.ServerResponse, rest: string[], body: Buffer): Promise<void> {
    if (rest.length === 1 && rest[0] === 'details') {
      if (req.method !== 'POST') throw new HttpError(405, 'POST');
      return await this.details(res, body);
    }
    if (rest.length === 0) {
      if (req.method !== 'GET') throw new HttpError(405, 'GET');
      const runtime = await this.deps.runtime();
      const instances = runtime.namespaces.flatMap((namespace) =>
        namespace.instanceNames().map((name): InstanceSummary => {
          const host = namespace.existingHost(name);
          return { namespace: namespace.binding, agent: camelCaseToKebabCase(namespace.binding), className: namespace.className, name, awake: host?.isAwake ?? false, connections: host?.connectionCount ?? 0 };
        }),
      );
      return answer(res, 'GET /__hookbench/instances', { instances });
    }
    const namespace = await this.namespace(rest[0]);
    const name = decode(rest[1], 'instance name');
    const exists = namespace.has(name);
    // Asking about an instance must not create one.
    const host = () => {
      if (!exists) throw new HttpError(404, `no instance ${name}`);
      return namespace.host(name);
    };
    if (rest[2] === 'query' && rest.length === 3) {
      if (req.method !== 'POST') throw new HttpError(405, 'POST');
      const { sql, params, timeoutMs } = parseQuery(body);
      const instance = host();
      // The caller's SQL never touches the live database: it runs on a copy, in a worker thread.
      const result = await this.queries.run({ image: () => instance.inspect((db) => db.image()), sql, params, timeoutMs });
      const rows = result.rows.map((row) => row.map((v) => (v instanceof Uint8Array ? { base64: Buffer.from(v).toString('base64') } : v)));
      return answer(res, 'POST /__hookbench/instances/<namespace>/<name>/query', { columns: result.columns, rows, ...(result.truncated ? { truncated: true as const } : {}) });
    }
    if (rest[2] === 'execute' && rest.length === 3) {
      if (req.method !== 'POST') throw new HttpError(405, 'POST');
      const { sql, params, timeoutMs } = parseExecute(body);
      const instance = host();
      // First on a copy, in the worker thread, under the time limit: a statement that loops is
      // stopped there (sql.js cannot interrupt one), and one that changed what the runtime relies
      // on is refused, before either touches the thread that answers webhooks.
      await this.queries.check({ image: () => instance.inspect((db) => db.image()), sql, params, timeoutMs });
      const maxRows = this.deps.query?.maxRows ?? 10_000;
      // Then by the instance on its live database, now known to finish within the limit: journaled
      // and durable before the answer (the output gate).
      const result = await instance.inspect((db) => {
        try {
          return db.exec(sql, params);
        } catch (error) {
          throw new HttpError(400, `SQL error: ${(error as Error)?.message ?? String(error)}`);
        }
      });
      this.deps.instanceEvents.fire({ kind: 'changed', namespace: namespace.binding, name });
      const rows = result.rows.slice(0, maxRows).map((row) => row.map((v) => (v instanceof Uint8Array ? { base64: Buffer.from(v).toString('base64') } : v)));
      return answer(res, 'POST /__hookbench/instances/<namespace>/<name>/execute', { columns: result.columns, rows, rowsWritten: result.rowsWritten, ...(result.rows.length > maxRows ? { truncated: true as const } : {}) });
    }
    if (rest[2] === 'events' && rest.length === 3) {
      if (req.method !== 'DELETE') throw new HttpError(405, 'DELETE');
      const deleted = await host().inspect((db) => (tableExists(db, EVENTS_TABLE) ? db.exec(EVENTS_CLEAR).rowsWritten : 0));
      this.deps.instanceEvents.fire({ kind: 'changed', namespace: namespace.binding, name });
      return answer(res, 'DELETE /__hookbench/instances/<namespace>/<name>/events', { deleted });
    }
    if (rest.length !== 2) throw new HttpError(404, 'no such admin route');
    if (req.method === 'DELETE') {
      const deleted = await namespace.destroy(name);
      if (!deleted) throw new HttpError(404, `no instance ${name}`);
      this.deps.instanceEvents.fire({ kind: 'deleted', namespace: namespace.binding, name });
      return answer(res, 'DELETE /__hookbench/instances/<namespace>/<name>', { deleted: true, namespace: namespace.binding, name });
    }
    if (req.method !== 'GET') throw new HttpError(405, 'GET or DELETE');
    answer(res, 'GET /__hookbench/instances/<namespace>/<name>', await describe(namespace, host()));
  }

  /** `POST /__hookbench/instances/details`: many instances described in one request (the explorer's page). */
  private async details(res: http.ServerResponse, body: Buffer): Promise<void> {
    const refs = parseDetails(body);
    const runtime = await this.deps.runtime();
    const instances: InstanceDetails[] = [];
    // One at a time: each wakes its instance, and a page must not wake a hundred at once.
    for (const { namespace: wanted, name } of refs) {
      const namespace = runtime.namespaces.find((n) => n.binding === wanted || camelCaseToKebabCase(n.binding) === wanted);
      if (!namespace || !namespace.has(name)) continue;
      instances.push(await describe(namespace, namespace.host(name)));
    }
    answer(res, 'POST /__hookbench/instances/details', { instances });
  }

  private deliveries(req: http.IncomingMessage, res: http.ServerResponse, url: URL, rest: string[]): void {
    if (req.method !== 'GET') throw new HttpError(405, 'GET');
    if (rest.length === 0) return answer(res, 'GET /__hookbench/deliveries', { deliveries: this.deps.deliveries.list(limitOf(url)) });
    const record = this.deps.deliveries.get(decode(rest[0], 'delivery id'));
    if (!record) throw new HttpError(404, 'no such delivery');
    const { requestBody, ...rest_ } = record;
    answer(res, 'GET /__hookbench/deliveries/<id>', { ...rest_, requestBody: requestBody.toString('utf8'), requestBodyBase64: requestBody.toString('base64') });
  }

  /** The live feed: instance, delivery and outbound events as JSON messages. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    let ok = false;
    try {
      ok = url.pathname === LIVE_PATH && this.authorized(req, url);
    } catch {
      ok = false;
    }
    if (!ok) {
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const send = (message: LiveMessage) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(message));
      const subscriptions = [
        this.deps.deliveries.onDidRecord((delivery) => send({ type: 'delivery', delivery })),
        this.deps.instanceEvents.event((event) => send(instanceMessage(event))),
        this.deps.sink.onDidCapture(({ bodyBase64: _b, ...capture }) => send({ type: 'outbound', capture, dropped: this.deps.sink.dropped() })),
      ];
      ws.on('close', () => subscriptions.forEach((s) => s.dispose()));
      send({ type: 'hello' });
    });
  }

  close(): void {
    this.queries.close();
    for (const client of this.wss.clients) client.close(1001, 'Server shutting down');
  }
}

/** An instance's state row and its tables with their row counts (it wakes the instance). */
async function describe(namespace: DurableObjectNamespace, instance: InstanceHost): Promise<InstanceDetails> {
  const details = await instance.inspect((db) => {
    const stateRow = tableExists(db, AGENT_STATE_TABLE) ? db.exec(AGENT_STATE_SELECT, [AGENT_STATE_ROW_ID]).rows[0] : undefined;
    const tables = db
      .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_hookbench%' ORDER BY name")
      .rows.map(([table]) => ({ name: String(table), rows: Number(db.exec(`SELECT count(*) FROM "${String(table).replace(/"/g, '""')}"`).rows[0]![0]) }));
    return { state: stateRow ? stateFromText(String(stateRow[0])) : null, tables };
  });
  return { namespace: namespace.binding, agent: camelCaseToKebabCase(namespace.binding), name: instance.name, awake: instance.isAwake, connections: instance.connectionCount, ...details };
}

function parseDetails(body: Buffer): InstanceRef[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not JSON: send {"instances": [{"namespace": "…", "name": "…"}]}');
  }
  const refs = (parsed as { instances?: unknown } | null)?.instances;
  if (!Array.isArray(refs) || !refs.every((r) => typeof r?.namespace === 'string' && typeof r?.name === 'string')) throw new HttpError(400, '"instances" must be an array of {"namespace", "name"} strings');
  if (refs.length > MAX_DETAILS) throw new HttpError(400, `at most ${MAX_DETAILS} instances per request`);
  return refs as InstanceRef[];
}

function limitOf(url: URL): number {
  const limit = Number(url.searchParams.get('limit') ?? 100);
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, 10_000) : 100;
}

function tableExists(db: { exec(sql: string, params?: never[]): { rows: unknown[][] } }, name: string): boolean {
  return db.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${name}'`).rows.length > 0;
}
