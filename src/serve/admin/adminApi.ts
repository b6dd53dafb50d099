/**
 * The admin API under /__hookbench/: instances, deliveries, read-only queries, the live feed,
 * the outbound sink, and the data folder lock's proof, dispatched from the contract's route table
 * (src/core/contract/admin.ts) by adminRouter.ts. Each route declares who may call it: the admin
 * token (`Authorization: Bearer <admin token>`, or `?token=` for the live WebSocket, which
 * browsers cannot give headers) for all but `POST /__hookbench/sink/<name>` and
 * `POST /__hookbench/lock/confirm`; with no token configured those routes answer 403. Shapes:
 * docs/admin-api.md.
 */
import type * as http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ADMIN_API, ADMIN_PREFIX, adminRoutesAt } from '../../core/contract/admin';
import { RouteError, type RouteMessage } from '../../core/contract/adminRoute';
import type { BindingChange } from '../../core/contract/bindings';
import type { InstanceEvent } from '../../core/contract/instances';
import { instanceMessage, liveWantsBatches } from '../../core/contract/live';
import type { Emitter } from '../../core/events';
import type { Logger } from '../../core/log';
import type { WorkerRuntime } from '../../runtime/worker/workerRuntime';
import { safeEqualText } from '../../core/signing/crypto';
import { QueryError, QueryRunner, type QueryOptions } from './adminQuery';
import { dispatch, MethodNotAllowed, type AdminHandlers } from './adminRouter';
import { BindingsApi } from './bindingsApi';
import { InstancesApi } from './instancesApi';
import { LiveFrames } from './liveFrames';
import type { DeliveryLog } from '../deliveryLog';
import { CaptureTooLargeError, type Sink } from '../sink';
import type { DataLock } from '../dataLock';
import type { MountedRoutes } from '../http/mountedRoutes';

export interface AdminDeps {
  readonly token: string | undefined;
  readonly runtime: () => Promise<WorkerRuntime>;
  readonly deliveries: DeliveryLog;
  readonly sink: Sink;
  readonly instanceEvents: Emitter<InstanceEvent>;
  readonly bindingChanges: Emitter<BindingChange>;
  readonly logger: Logger;
  /** The data folder's lock, whose holder this process proves to be (`POST /__hookbench/lock/confirm`). */
  readonly lock?: Pick<DataLock, 'confirm'>;
  /** Limits of the read-only queries (time, rows, memory); the defaults suit serve. */
  readonly query?: QueryOptions;
}

function json(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(body);
}

type LiveMessage = RouteMessage<typeof ADMIN_API.live>;

export class AdminApi implements MountedRoutes {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly queries: QueryRunner;
  private readonly handlers: AdminHandlers;

  constructor(private readonly deps: AdminDeps) {
    this.queries = new QueryRunner(deps.query);
    const instances = new InstancesApi({
      runtime: deps.runtime,
      instanceEvents: deps.instanceEvents,
      queries: this.queries,
      maxRows: deps.query?.maxRows ?? 10_000,
    });
    const bindings = new BindingsApi(deps.runtime, this.queries);
    this.handlers = { ...instances.handlers, ...bindings.handlers, ...this.ownHandlers() };
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
    const capture = adminRoutesAt(pathname).some(({ route }) => route === ADMIN_API.capture && route.method === method);
    return capture ? this.deps.sink.limits.maxCaptureBytes : undefined;
  }

  /** Answers a request whose body went over its limit: 413 with the one-line reason, which it returns. */
  refuseBody(res: http.ServerResponse, method: string | undefined, pathname: string, limit: number, declared: number | undefined): string {
    const reason =
      this.bodyLimit(method, pathname) !== undefined ? new CaptureTooLargeError(limit, declared).message : `the request body is over ${limit} bytes`;
    json(res, 413, { error: reason });
    return reason;
  }

  /** Throws the 403 of an admin API without a token, or the 401 of a request without the right one. */
  private authorize(req: http.IncomingMessage, url: URL): void {
    const { token } = this.deps;
    if (!token) throw new RouteError(403, 'the admin API is off: start serve with --admin-token or HOOKBENCH_ADMIN_TOKEN');
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : (url.searchParams.get('token') ?? '');
    if (!safeEqualText(given, token)) throw new RouteError(401, 'missing or wrong admin token');
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer): Promise<void> {
    try {
      json(res, 200, await dispatch(this.handlers, req, url, body, () => this.authorize(req, url)));
    } catch (error) {
      if (error instanceof MethodNotAllowed) return json(res, 405, { error: error.message }, { allow: error.allow.join(', ') });
      if (error instanceof RouteError || error instanceof QueryError || error instanceof CaptureTooLargeError)
        return json(res, error.status, { error: error.message });
      this.deps.logger.error(`[admin] ${req.method} ${url.pathname}: ${(error as Error)?.stack ?? String(error)}`);
      json(res, 500, { error: (error as Error)?.message ?? String(error) });
    }
  }

  /** The routes of deliveries, the outbound sink and the lock's proof. */
  private ownHandlers(): Pick<AdminHandlers, 'deliveries' | 'delivery' | 'capture' | 'sinkCaptures' | 'captures' | 'lockConfirm'> {
    const { deliveries, sink, lock } = this.deps;
    return {
      deliveries: ({ query }) => ({ deliveries: deliveries.list(query.limit) }),
      delivery: ({ params }) => {
        const record = deliveries.get(params.id);
        if (!record) throw new RouteError(404, 'no such delivery');
        const { requestBody, ...rest } = record;
        return { ...rest, requestBody: requestBody.toString('utf8'), requestBodyBase64: requestBody.toString('base64') };
      },
      capture: async ({ params, body, req }) => {
        const headers: Record<string, string> = {};
        for (let i = 0; i < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i]!] = req.rawHeaders[i + 1]!;
        const capture = await sink.capture(params.name, headers, Buffer.from(body.buffer, body.byteOffset, body.byteLength));
        return { received: true, id: capture.id, verification: capture.verification };
      },
      sinkCaptures: ({ params, query }) => sink.list(params.name, query.limit),
      captures: ({ query }) => sink.list(undefined, query.limit),
      lockConfirm: ({ body }) => {
        if (!lock) throw new RouteError(404, 'this server holds no data folder lock');
        return lock.confirm(body.challenge);
      },
    };
  }

  /** The live feed: instance, delivery and outbound events as JSON messages. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    if (!this.mayListen(req, url)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const frames = new LiveFrames((frame) => ws.readyState === ws.OPEN && ws.send(frame), liveWantsBatches(url));
      const send = (message: LiveMessage) => frames.push(message);
      const subscriptions = [
        this.deps.deliveries.onDidRecord((delivery) => send({ type: 'delivery', delivery })),
        this.deps.instanceEvents.event((event) => send(instanceMessage(event))),
        this.deps.bindingChanges.event((change) => send({ type: 'binding', ...change })),
        this.deps.sink.onDidCapture(({ bodyBase64: _b, ...capture }) => send({ type: 'outbound', capture, dropped: this.deps.sink.dropped() })),
      ];
      ws.on('close', () => {
        subscriptions.forEach((s) => s.dispose());
        frames.dispose();
      });
      send({ type: 'hello' });
    });
  }

  /** Whether an upgrade is to the live feed, with the admin token. */
  private mayListen(req: http.IncomingMessage, url: URL): boolean {
    if (!adminRoutesAt(url.pathname).some(({ route }) => route === ADMIN_API.live)) return false;
    try {
      this.authorize(req, url);
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    this.queries.close();
    for (const client of this.wss.clients) client.close(1001, 'Server shutting down');
  }
}
