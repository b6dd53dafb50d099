/**
 * The extension's client of the serve process's admin API (docs/admin-api.md) and of its live
 * feed. It holds the session token; nothing it fetches contains a secret.
 */
import WebSocket from 'ws';
import { Emitter } from '../../core/events';
import type { Logger } from '../../core/log';
import type { DeliverySummary } from '../../core/contract/deliveries';

export interface InstanceSummary {
  readonly namespace: string;
  readonly agent: string;
  readonly className: string;
  readonly name: string;
  readonly awake: boolean;
  readonly connections: number;
}

export interface InstanceDetails extends InstanceSummary {
  readonly state: unknown;
  readonly tables: { name: string; rows: number }[];
}

export interface EventRow {
  readonly id: string;
  readonly type: string;
  readonly action: string | null;
  readonly title: string;
  readonly timestamp: string;
}

export type { DeliverySummary } from '../../core/contract/deliveries';

export interface CaptureSummary {
  readonly id: string;
  readonly sink: string;
  readonly time: string;
  readonly body: string;
  readonly verification: string | null;
}

export type LiveMessage =
  | { type: 'hello' }
  | { type: 'delivery'; delivery: DeliverySummary }
  | { type: 'instance'; kind: 'woken' | 'evicted' | 'deleted' | 'changed'; namespace: string; name: string }
  | { type: 'outbound'; capture: CaptureSummary };

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

  private async get<T>(path: string, init: { method?: string; body?: string } = {}): Promise<T> {
    const response = await fetch(`${this.baseUrl}/__hookbench/${path}`, { ...init, headers: { authorization: `Bearer ${this.token}` } });
    const body = (await response.json()) as T & { error?: string };
    if (!response.ok) throw new Error(body.error ?? `admin API answered ${response.status}`);
    return body;
  }

  async instances(): Promise<InstanceSummary[]> {
    return (await this.get<{ instances: InstanceSummary[] }>('instances')).instances;
  }

  instance(namespace: string, name: string): Promise<InstanceDetails> {
    return this.get<InstanceDetails>(`instances/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`);
  }

  async query(namespace: string, name: string, sql: string, params: (string | number | null)[] = []): Promise<Record<string, unknown>[]> {
    const result = await this.get<{ columns: string[]; rows: unknown[][] }>(`instances/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/query`, { method: 'POST', body: JSON.stringify({ sql, params }) });
    return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i]])));
  }

  async events(namespace: string, name: string, limit = 50): Promise<EventRow[]> {
    return (await this.query(namespace, name, 'SELECT id, type, action, title, timestamp FROM events ORDER BY timestamp DESC LIMIT ?', [limit])) as unknown as EventRow[];
  }

  async payload(namespace: string, name: string, id: string): Promise<string | undefined> {
    const [row] = await this.query(namespace, name, 'SELECT payload FROM events WHERE id = ?', [id]);
    return row?.['payload'] as string | undefined;
  }

  async clearEvents(namespace: string, name: string): Promise<number> {
    return (await this.get<{ deleted: number }>(`instances/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/events`, { method: 'DELETE' })).deleted;
  }

  async deleteInstance(namespace: string, name: string): Promise<void> {
    await this.get(`instances/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`, { method: 'DELETE' });
  }

  async deliveries(limit = 200): Promise<DeliverySummary[]> {
    return (await this.get<{ deliveries: DeliverySummary[] }>(`deliveries?limit=${limit}`)).deliveries;
  }

  delivery(id: string): Promise<DeliverySummary & { requestHeaders: Record<string, string>; requestBody: string; requestBodyBase64: string; responseHeaders: Record<string, string>; responseBody: string }> {
    return this.get(`deliveries/${encodeURIComponent(id)}`);
  }

  async captures(limit = 200): Promise<CaptureSummary[]> {
    return (await this.get<{ captures: CaptureSummary[] }>(`sink?limit=${limit}`)).captures;
  }

  /** Connects the live feed, reconnecting while the client is open. */
  connectLive(): void {
    if (this.closed || this.socket) return;
    const socket = new WebSocket(`${this.baseUrl.replace(/^http/, 'ws')}/__hookbench/live`, { headers: { authorization: `Bearer ${this.token}` } });
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
