/**
 * The extension's client of the serve process's admin API (docs/admin-api.md) and of its live
 * feed. It holds the session token; nothing it fetches contains a secret.
 */
import { TOKEN_HEADER } from '../../core/contract/ownerToken';
import { EVENT_PAYLOAD, EVENTS_NEWEST } from '../../core/contract/tables';
import WebSocket from 'ws';
import type { AdminRoute, AdminRoutes, DeliveryDetails, DetailsRequest, ExecuteResult, QueryParam, QueryResult } from '../../core/contract/admin';
import type { AlarmsPage, BindingSummary, D1Tables, KvKeysPage, KvValue, QueueInfo, R2ObjectInfo, R2ObjectsPage, WorkflowInstancesPage } from '../../core/contract/bindings';
import type { DeliverySummary } from '../../core/contract/deliveries';
import type { EventRow, InstanceDetails, InstanceRef, InstanceSummary } from '../../core/contract/instances';
import { LIVE_PATH, type LiveMessage } from '../../core/contract/live';
import type { CaptureList } from '../../core/contract/sink';
import { Emitter } from '../../core/events';
import type { Logger } from '../../core/log';

export class AdminClient {
  private socket: WebSocket | undefined;
  private readonly live = new Emitter<LiveMessage>();
  readonly onLive = this.live.event;
  private closed = false;
  /** HTTP requests made so far (the scale benchmark and the volume test read it). */
  requestCount = 0;
  /** The last routes asked (newest last), for a test that says which requests it did not expect. */
  readonly recentRoutes: AdminRoute[] = [];

  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly logger: Logger,
  ) {}

  /** What the owner's own clients of this receiver send besides: its token, which `serve --require-token` asks of every non-webhook route. */
  get ownerHeaders(): Record<string, string> {
    return { [TOKEN_HEADER]: this.token };
  }

  /** Asks `route` at `path` (below /__hookbench/); the answer has the type the contract gives the route. */
  private async get<R extends AdminRoute>(route: R, path: string, init: { method?: string; body?: string } = {}): Promise<AdminRoutes[R]> {
    this.requestCount++;
    this.recentRoutes.push(route);
    if (this.recentRoutes.length > 20) this.recentRoutes.shift();
    const response = await fetch(`${this.baseUrl}/__hookbench/${path}`, { ...init, headers: { authorization: `Bearer ${this.token}` } });
    const body = (await response.json()) as AdminRoutes[R] & { error?: string };
    if (!response.ok) throw new Error(body.error ?? `admin API answered ${response.status}`);
    return body;
  }

  private static instancePath(namespace: string, name: string): string {
    return `instances/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
  }

  async instances(): Promise<InstanceSummary[]> {
    return (await this.get('GET /__hookbench/instances', 'instances')).instances;
  }

  instance(namespace: string, name: string): Promise<InstanceDetails> {
    return this.get('GET /__hookbench/instances/<namespace>/<name>', AdminClient.instancePath(namespace, name));
  }

  /** Many instances' state and tables in one request (the explorer's page). */
  async details(instances: readonly InstanceRef[]): Promise<InstanceDetails[]> {
    if (instances.length === 0) return [];
    const body: DetailsRequest = { instances: instances.map(({ namespace, name }) => ({ namespace, name })) };
    return (await this.get('POST /__hookbench/instances/details', 'instances/details', { method: 'POST', body: JSON.stringify(body) })).instances;
  }

  async query(namespace: string, name: string, sql: string, params: QueryParam[] = []): Promise<Record<string, unknown>[]> {
    const result = await this.get('POST /__hookbench/instances/<namespace>/<name>/query', `${AdminClient.instancePath(namespace, name)}/query`, { method: 'POST', body: JSON.stringify({ sql, params }) });
    return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i]])));
  }

  /** One read-only statement's result as the admin API answers it: columns, rows, the row cap. */
  queryResult(namespace: string, name: string, sql: string, params: QueryParam[] = []): Promise<QueryResult> {
    return this.get('POST /__hookbench/instances/<namespace>/<name>/query', `${AdminClient.instancePath(namespace, name)}/query`, { method: 'POST', body: JSON.stringify({ sql, params }) });
  }

  /** One statement run by the instance itself, writes included (the inspector's read-write console). */
  execute(namespace: string, name: string, sql: string, params: QueryParam[] = []): Promise<ExecuteResult> {
    return this.get('POST /__hookbench/instances/<namespace>/<name>/execute', `${AdminClient.instancePath(namespace, name)}/execute`, { method: 'POST', body: JSON.stringify({ sql, params }) });
  }

  async events(namespace: string, name: string, limit = 50): Promise<EventRow[]> {
    return (await this.query(namespace, name, EVENTS_NEWEST, [limit])) as unknown as EventRow[];
  }

  async payload(namespace: string, name: string, id: string): Promise<string | undefined> {
    const [row] = await this.query(namespace, name, EVENT_PAYLOAD, [id]);
    return row?.['payload'] as string | undefined;
  }

  async clearEvents(namespace: string, name: string): Promise<number> {
    return (await this.get('DELETE /__hookbench/instances/<namespace>/<name>/events', `${AdminClient.instancePath(namespace, name)}/events`, { method: 'DELETE' })).deleted;
  }

  async deleteInstance(namespace: string, name: string): Promise<void> {
    await this.get('DELETE /__hookbench/instances/<namespace>/<name>', AdminClient.instancePath(namespace, name), { method: 'DELETE' });
  }

  async deliveries(limit = 200): Promise<DeliverySummary[]> {
    return (await this.get('GET /__hookbench/deliveries', `deliveries?limit=${limit}`)).deliveries;
  }

  delivery(id: string): Promise<DeliveryDetails> {
    return this.get('GET /__hookbench/deliveries/<id>', `deliveries/${encodeURIComponent(id)}`);
  }

  /** The newest captures of every sink, and how many older ones the sink's bounds dropped. */
  captures(limit = 200): Promise<CaptureList> {
    return this.get('GET /__hookbench/sink', `sink?limit=${limit}`);
  }

  /** The worker's bindings (the Bindings view's roots). */
  async bindings(): Promise<BindingSummary[]> {
    return (await this.get('GET /__hookbench/bindings', 'bindings')).bindings;
  }

  private static bindingPath(kind: string, name: string, action?: string, query: Record<string, string | number | undefined> = {}): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
    const search = params.size > 0 ? `?${params}` : '';
    return `bindings/${kind}/${encodeURIComponent(name)}${action ? `/${action}` : ''}${search}`;
  }

  kvKeys(binding: string, page: { prefix?: string; cursor?: string; limit?: number } = {}): Promise<KvKeysPage> {
    return this.get('GET /__hookbench/bindings/kv/<binding>/keys', AdminClient.bindingPath('kv', binding, 'keys', page));
  }

  kvValue(binding: string, key: string): Promise<KvValue> {
    return this.get('GET /__hookbench/bindings/kv/<binding>/value', AdminClient.bindingPath('kv', binding, 'value', { key }));
  }

  d1Tables(binding: string): Promise<D1Tables> {
    return this.get('GET /__hookbench/bindings/d1/<binding>/tables', AdminClient.bindingPath('d1', binding, 'tables'));
  }

  /** One read-only statement on a D1 database (the same path as an instance's `…/query`). */
  d1Query(binding: string, sql: string, params: QueryParam[] = []): Promise<QueryResult> {
    return this.get('POST /__hookbench/bindings/d1/<binding>/query', AdminClient.bindingPath('d1', binding, 'query'), { method: 'POST', body: JSON.stringify({ sql, params }) });
  }

  r2Objects(binding: string, page: { prefix?: string; cursor?: string; limit?: number } = {}): Promise<R2ObjectsPage> {
    return this.get('GET /__hookbench/bindings/r2/<binding>/objects', AdminClient.bindingPath('r2', binding, 'objects', page));
  }

  r2Head(binding: string, key: string): Promise<R2ObjectInfo> {
    return this.get('GET /__hookbench/bindings/r2/<binding>/object', AdminClient.bindingPath('r2', binding, 'object', { key }));
  }

  queue(queue: string, page: { cursor?: string; limit?: number } = {}): Promise<QueueInfo> {
    return this.get('GET /__hookbench/bindings/queue/<queue>', AdminClient.bindingPath('queue', queue, undefined, page));
  }

  workflowInstances(name: string, page: { cursor?: string; limit?: number } = {}): Promise<WorkflowInstancesPage> {
    return this.get('GET /__hookbench/bindings/workflow/<name>/instances', AdminClient.bindingPath('workflow', name, 'instances', page));
  }

  alarms(namespace: string, page: { cursor?: string; limit?: number } = {}): Promise<AlarmsPage> {
    return this.get('GET /__hookbench/bindings/durableObject/<namespace>/alarms', AdminClient.bindingPath('durableObject', namespace, 'alarms', page));
  }

  /** Connects the live feed, reconnecting while the client is open. */
  connectLive(): void {
    if (this.closed || this.socket) return;
    const socket = new WebSocket(`${this.baseUrl.replace(/^http/, 'ws')}${LIVE_PATH}`, { headers: { authorization: `Bearer ${this.token}` } });
    this.socket = socket;
    socket.on('message', (data) => {
      try {
        this.live.fire(JSON.parse(data.toString()) as LiveMessage);
      } catch (error) {
        this.logger.warn(`live feed: ${(error as Error).message}`);
      }
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
