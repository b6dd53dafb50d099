/**
 * The extension's client of the serve process's admin API (docs/admin-api.md) and of its live
 * feed. It holds the session token; nothing it fetches contains a secret.
 */
import { TOKEN_HEADER } from '../../core/contract/ownerToken';
import { EVENT_PAYLOAD, EVENTS_NEWEST } from '../../core/contract/tables';
import WebSocket from 'ws';
import { ADMIN_API, adminErrorOf, type DeliveryDetails, type ExecuteResult, type QueryParam, type QueryResult } from '../../core/contract/admin';
import {
  routeLabel,
  routePath,
  type GivenBody,
  type GivenQuery,
  type HttpRoute,
  type RouteAnswer,
  type RouteMessage,
  type RouteParams,
} from '../../core/contract/adminRoute';
import { ShapeError } from '../../core/contract/shape';
import type {
  AlarmsPage,
  BindingSummary,
  D1Tables,
  KvKeysPage,
  KvValue,
  QueueInfo,
  R2ObjectInfo,
  R2ObjectsPage,
  WorkflowInstancesPage,
} from '../../core/contract/bindings';
import type { DeliverySummary } from '../../core/contract/deliveries';
import type { EventRow, InstanceDetails, InstanceRef, InstanceSummary } from '../../core/contract/instances';
import type { CaptureList } from '../../core/contract/sink';
import { Emitter } from '../../core/events';
import { LIVE_BATCHED_QUERY, parseLiveFrame } from '../../core/contract/live';
import type { Logger } from '../../core/log';

type LiveMessage = RouteMessage<typeof ADMIN_API.live>;

/** What a call gives besides the path's segments: the route's query, and its body when it has one. */
export type CallOptions<R extends HttpRoute> = { readonly query?: GivenQuery<R> } & (GivenBody<R> extends undefined
  ? { readonly body?: undefined }
  : { readonly body: GivenBody<R> });

type CallRest<R extends HttpRoute> = GivenBody<R> extends undefined ? [options?: CallOptions<R>] : [options: CallOptions<R>];

/** An answer of another shape than the route declares: `the answer to GET /__hookbench/… is malformed: instances[2].awake: …`. */
export class MalformedAnswerError extends Error {
  constructor(
    readonly route: HttpRoute,
    what: string,
  ) {
    super(`the answer to ${routeLabel(route)} is malformed (is the serve of another hookbench version?): ${what}`);
  }
}

export class AdminClient {
  private socket: WebSocket | undefined;
  private readonly live = new Emitter<LiveMessage>();
  readonly onLive = this.live.event;
  private closed = false;

  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly logger: Logger,
  ) {}

  /** What the owner's own clients of this receiver send besides: its token, which `serve --require-token` asks of every non-webhook route. */
  get ownerHeaders(): Record<string, string> {
    return { [TOKEN_HEADER]: this.token };
  }

  /**
   * Calls `route` of the admin API's table (src/core/contract/admin.ts) with its path's segments,
   * its query and its body; the answer is read on arrival by the route's reader. A failure throws
   * the server's one-line `error`; an answer of another shape, a MalformedAnswerError.
   */
  async call<R extends HttpRoute>(route: R, params: RouteParams<R>, ...[options]: CallRest<R>): Promise<RouteAnswer<R>> {
    const { query, body } = (options ?? {}) as { query?: GivenQuery<R>; body?: GivenBody<R> };
    const init: RequestInit = { method: route.method, headers: { authorization: `Bearer ${this.token}` } };
    if (body !== undefined && route.body) init.body = (route.body.format as (given: unknown) => string | Uint8Array)(body);
    const response = await fetch(`${this.baseUrl}${routePath(route, params, query as never)}`, init);
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      if (!response.ok) throw new Error(`admin API answered ${response.status}`);
      throw new MalformedAnswerError(route, 'the answer is not JSON');
    }
    if (!response.ok) throw new Error(adminErrorOf(json) ?? `admin API answered ${response.status}`);
    try {
      return route.answer.read(json) as RouteAnswer<R>;
    } catch (error) {
      if (error instanceof ShapeError) throw new MalformedAnswerError(route, error.message);
      throw error;
    }
  }

  async instances(): Promise<InstanceSummary[]> {
    return (await this.call(ADMIN_API.instances, {})).instances;
  }

  instance(namespace: string, name: string): Promise<InstanceDetails> {
    return this.call(ADMIN_API.instance, { namespace, name });
  }

  /** Many instances' state and tables in one request (the explorer's page). */
  async details(instances: readonly InstanceRef[]): Promise<InstanceDetails[]> {
    if (instances.length === 0) return [];
    return (await this.call(ADMIN_API.details, {}, { body: { instances } })).instances;
  }

  async query(namespace: string, name: string, sql: string, params: QueryParam[] = []): Promise<Record<string, unknown>[]> {
    const result = await this.queryResult(namespace, name, sql, params);
    return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i]])));
  }

  /** One read-only statement's result as the admin API answers it: columns, rows, the row cap. */
  queryResult(namespace: string, name: string, sql: string, params: QueryParam[] = []): Promise<QueryResult> {
    return this.call(ADMIN_API.query, { namespace, name }, { body: { sql, params } });
  }

  /** One statement run by the instance itself, writes included (the inspector's read-write console). */
  execute(namespace: string, name: string, sql: string, params: QueryParam[] = []): Promise<ExecuteResult> {
    return this.call(ADMIN_API.execute, { namespace, name }, { body: { sql, params } });
  }

  async events(namespace: string, name: string, limit = 50): Promise<EventRow[]> {
    return (await this.query(namespace, name, EVENTS_NEWEST, [limit])) as unknown as EventRow[];
  }

  async payload(namespace: string, name: string, id: string): Promise<string | undefined> {
    const [row] = await this.query(namespace, name, EVENT_PAYLOAD, [id]);
    return row?.['payload'] as string | undefined;
  }

  async clearEvents(namespace: string, name: string): Promise<number> {
    return (await this.call(ADMIN_API.clearEvents, { namespace, name })).deleted;
  }

  async deleteInstance(namespace: string, name: string): Promise<void> {
    await this.call(ADMIN_API.deleteInstance, { namespace, name });
  }

  async deliveries(limit = 200): Promise<DeliverySummary[]> {
    return (await this.call(ADMIN_API.deliveries, {}, { query: { limit } })).deliveries;
  }

  delivery(id: string): Promise<DeliveryDetails> {
    return this.call(ADMIN_API.delivery, { id });
  }

  /** The newest captures of every sink, and how many older ones the sink's bounds dropped. */
  captures(limit = 200): Promise<CaptureList> {
    return this.call(ADMIN_API.captures, {}, { query: { limit } });
  }

  /** The worker's bindings (the Bindings view's roots). */
  async bindings(): Promise<BindingSummary[]> {
    return (await this.call(ADMIN_API.bindings, {})).bindings;
  }

  kvKeys(binding: string, page: { prefix?: string; cursor?: string; limit?: number } = {}): Promise<KvKeysPage> {
    return this.call(ADMIN_API.kvKeys, { binding }, { query: page });
  }

  kvValue(binding: string, key: string): Promise<KvValue> {
    return this.call(ADMIN_API.kvValue, { binding }, { query: { key } });
  }

  d1Tables(binding: string): Promise<D1Tables> {
    return this.call(ADMIN_API.d1Tables, { binding });
  }

  /** One read-only statement on a D1 database (the same path as an instance's `…/query`). */
  d1Query(binding: string, sql: string, params: QueryParam[] = []): Promise<QueryResult> {
    return this.call(ADMIN_API.d1Query, { binding }, { body: { sql, params } });
  }

  r2Objects(binding: string, page: { prefix?: string; cursor?: string; limit?: number } = {}): Promise<R2ObjectsPage> {
    return this.call(ADMIN_API.r2Objects, { binding }, { query: page });
  }

  r2Head(binding: string, key: string): Promise<R2ObjectInfo> {
    return this.call(ADMIN_API.r2Object, { binding }, { query: { key } });
  }

  queue(queue: string, page: { cursor?: string; limit?: number } = {}): Promise<QueueInfo> {
    return this.call(ADMIN_API.queue, { queue }, { query: page });
  }

  workflowInstances(name: string, page: { cursor?: string; limit?: number } = {}): Promise<WorkflowInstancesPage> {
    return this.call(ADMIN_API.workflowInstances, { name }, { query: page });
  }

  alarms(namespace: string, page: { cursor?: string; limit?: number } = {}): Promise<AlarmsPage> {
    return this.call(ADMIN_API.alarms, { namespace }, { query: page });
  }

  /** Connects the live feed, reconnecting while the client is open. */
  connectLive(): void {
    if (this.closed || this.socket) return;
    // On loopback, compression only costs: inflating each message of the feed (three a webhook)
    // was the extension host's largest single cost (docs/performance.md, "The explorer in the
    // extension host").
    // Batched: a frame for many messages, not one each (at 200 webhooks a second, 20 frames instead of 600).
    const socket = new WebSocket(`${this.baseUrl.replace(/^http/, 'ws')}${routePath(ADMIN_API.live, {})}?${LIVE_BATCHED_QUERY}`, {
      headers: { authorization: `Bearer ${this.token}` },
      perMessageDeflate: false,
    });
    this.socket = socket;
    socket.on('message', (data) => {
      let messages: LiveMessage[];
      try {
        messages = parseLiveFrame(data.toString());
      } catch (error) {
        // One line for the frame, none of its messages applied: a half-read frame would leave the views out of step.
        return this.logger.warn(`live feed: a frame left out, ${error instanceof ShapeError ? 'malformed' : 'not JSON'}: ${(error as Error).message}`);
      }
      for (const message of messages) this.live.fire(message);
    });
    socket.on('close', () => {
      this.socket = undefined;
      if (!this.closed) setTimeout(() => this.connectLive(), 1000).unref();
    });
    socket.on('error', (error) => this.logger.debug(`live feed: ${error.message}`));
  }

  dispose(): void {
    this.closed = true;
    this.socket?.close();
    this.live.dispose();
  }
}
