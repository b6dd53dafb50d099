/**
 * The agent instances the serve process hosts, as the admin API and its live feed describe them,
 * and what the built-in worker's agents keep (their `events` rows and their state), which the
 * explorer reads over the admin API and the agents protocol. Each type a client receives has its
 * reader beside it (shape.ts).
 */
import { anything, bool, count, listOf, nullable, shape, text } from './shape';

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

export const readInstanceSummary = shape<InstanceSummary>({ namespace: text, agent: text, className: text, name: text, awake: bool, connections: count });

/** A table of an instance's database and how many rows it holds. */
export interface TableSummary {
  readonly name: string;
  readonly rows: number;
}

const readTableSummary = shape<TableSummary>({ name: text, rows: count });

/** One instance, woken, with its persisted state (`null` when it has none) and its tables. */
export interface InstanceDetails extends Omit<InstanceSummary, 'className'> {
  readonly state: unknown;
  readonly tables: TableSummary[];
}

export const readInstanceDetails = shape<InstanceDetails>({
  namespace: text,
  agent: text,
  name: text,
  awake: bool,
  connections: count,
  state: anything,
  tables: listOf(readTableSummary),
});

/** Which instance a message is about. */
export interface InstanceRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * Something that happened to an instance, with what a view needs to show it without asking again:
 * `created` (its first wake: data on disk from now on), `woken` and `evicted` by the runtime, each
 * with its summary; `deleted` through the admin API; `changed` (its events were cleared through
 * the admin API, so the view re-reads them); `state` (the agent's state row was set, as the
 * agents protocol broadcasts it); `event` (the agent stored an event row, without its payload).
 */
export type InstanceEvent =
  | (InstanceRef & { readonly kind: 'created' | 'woken' | 'evicted'; readonly instance: InstanceSummary })
  | (InstanceRef & { readonly kind: 'deleted' | 'changed' })
  | (InstanceRef & { readonly kind: 'state'; readonly state: unknown })
  | (InstanceRef & { readonly kind: 'event'; readonly event: EventRow });

/** The lifecycle events, which the live feed sends as `instance` messages. */
export type InstanceLifecycle = Extract<InstanceEvent, { readonly kind: 'created' | 'woken' | 'evicted' | 'deleted' | 'changed' }>;

/** A row of the built-in worker's `events` table (docs/webhook-pattern.md, "The events table"), as its callables and queries return it. */
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

export const readEventRow = shape<EventRow>({ id: text, type: text, action: nullable(text), title: text, timestamp: text });

/** The built-in worker's agent state, broadcast to every connected client on each stored event. */
export interface WebhookState {
  readonly lastEventType: string | null;
  readonly lastEventAt: string | null;
  readonly stats: { readonly total: number; readonly byType: Readonly<Record<string, number>> };
}
