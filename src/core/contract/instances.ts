/**
 * The agent instances the serve process hosts, as the admin API and its live feed describe them,
 * and what the built-in worker's agents keep (their `events` rows and their state), which the
 * explorer reads over the admin API and the agents protocol.
 */

/** One instance with data on disk or awake now. `agent` is the URL segment of `/agents/<agent>/<name>`. */
export interface InstanceSummary {
  /** The Durable Object binding, e.g. `WEBHOOK_AGENT`. */
  readonly namespace: string;
  readonly agent: string;
  readonly className: string;
  readonly name: string;
  readonly awake: boolean;
  readonly connections: number;
}

/** A table of an instance's database and how many rows it holds. */
export interface TableSummary {
  readonly name: string;
  readonly rows: number;
}

/** One instance, woken, with its persisted state (`null` when it has none) and its tables. */
export interface InstanceDetails extends Omit<InstanceSummary, 'className'> {
  readonly state: unknown;
  readonly tables: TableSummary[];
}

/**
 * Something that happened to an instance: woken or evicted by the runtime, deleted through the
 * admin API, or `changed` (its events were cleared through the admin API).
 */
export interface InstanceEvent {
  readonly kind: 'woken' | 'evicted' | 'deleted' | 'changed';
  readonly namespace: string;
  readonly name: string;
}

/** A row of the built-in worker's `events` table (seed §4.3), as its callables and queries return it. */
export interface StoredEvent {
  readonly id: string;
  readonly type: string;
  readonly action: string | null;
  readonly title: string;
  readonly description: string | null;
  readonly url: string | null;
  readonly actor: string | null;
  readonly payload: string | null;
  readonly timestamp: string;
}

/** What the explorer lists of an event: the row without its payload and details. */
export type EventRow = Pick<StoredEvent, 'id' | 'type' | 'action' | 'title' | 'timestamp'>;

/** The built-in worker's agent state, broadcast to every connected client on each stored event. */
export interface WebhookState {
  readonly lastEventType: string | null;
  readonly lastEventAt: string | null;
  readonly stats: { readonly total: number; readonly byType: Readonly<Record<string, number>> };
}
