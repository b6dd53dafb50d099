/**
 * How the explorer reads one expanded instance, whoever runs it (the built-in worker, a user's
 * worker, a deployed one): as any client of the agent would, over the agents protocol
 * (docs/explorer.md). Its state comes from the `cf_agent_state` frames the agent broadcasts; its
 * events from the agent's `getEvents` callable. A worker without that callable, or without an
 * agents route at all, is read through the fallback instead (the admin API's read-only SQL for
 * the local serve process; nothing for a deployed worker).
 */
import type { EventRow, InstanceSummary } from '../../core/contract/instances';
import type { Event } from '../../core/events';
import { AgentConnection, RpcError } from './agentConnection';

/** Which path answered an instance's events: the agent's callable, or the fallback. */
export type ReadPath = 'callable' | 'fallback';

/** What the explorer's model needs of a reader (the unit tests and the benchmark use the real one). */
export interface InstanceChannel {
  /** The state the agent last broadcast; `undefined` until the first frame. */
  readonly state: unknown;
  readonly onDidChangeState: Event<unknown>;
  /** The newest `limit` events, newest first (as the agent returns them, payloads included), and which path read them. */
  events(limit: number): Promise<{ rows: readonly EventRow[]; via: ReadPath }>;
  dispose(): void;
}

/** The agents-protocol URL of an instance: `ws://host/agents/<agent>/<name>`. */
export function agentUrl(baseUrl: string, agent: string, name: string): string {
  return `${baseUrl.replace(/^http/, 'ws').replace(/\/$/, '')}/agents/${agent}/${encodeURIComponent(name)}`;
}

/**
 * The reader of an instance the local serve process runs: over the agents protocol on the
 * receiver's address, with the admin API's SQL as the fallback for its events.
 */
export function localReader(
  client: {
    readonly baseUrl: string;
    readonly ownerHeaders: Record<string, string>;
    events(namespace: string, name: string, limit?: number): Promise<EventRow[]>;
  },
  instance: InstanceSummary,
): InstanceReader {
  return new InstanceReader(
    agentUrl(client.baseUrl, instance.agent, instance.name),
    (limit) => client.events(instance.namespace, instance.name, limit),
    client.ownerHeaders,
  );
}

export class InstanceReader implements InstanceChannel {
  readonly connection: AgentConnection;
  /** Known once asked: whether the agent has a `getEvents` callable. */
  private callable: boolean | undefined;

  constructor(
    url: string,
    private readonly fallback?: (limit: number) => Promise<EventRow[]>,
    /** Sent with the upgrade: the local receiver's token, for `--require-token` (never to a deployed worker). */
    headers: Record<string, string> = {},
  ) {
    this.connection = new AgentConnection(url, headers);
  }

  get state(): unknown {
    return this.connection.state;
  }

  get onDidChangeState(): Event<unknown> {
    return this.connection.onDidChangeState;
  }

  /** The path the next events read takes, once known. */
  get path(): ReadPath | undefined {
    return this.callable === undefined ? undefined : this.callable ? 'callable' : 'fallback';
  }

  async events(limit: number): Promise<{ rows: readonly EventRow[]; via: ReadPath }> {
    if (this.callable !== false && (await this.connection.opened())) {
      try {
        const rows = (await this.connection.call('getEvents', [limit])) as EventRow[];
        this.callable = true;
        return { rows: Array.isArray(rows) ? rows : [], via: 'callable' };
      } catch (error) {
        // Only "no such callable" settles the path; a dropped connection is asked again next time.
        if (!(error instanceof RpcError && error.notCallable) && this.fallback === undefined) throw error;
        if (error instanceof RpcError && error.notCallable) this.callable = false;
      }
    } else if (this.connection.refused) {
      this.callable = false;
    }
    if (!this.fallback) throw new Error(this.connection.error ?? 'the agent has no getEvents callable');
    return { rows: await this.fallback(limit), via: 'fallback' };
  }

  dispose(): void {
    this.connection.dispose();
  }
}
