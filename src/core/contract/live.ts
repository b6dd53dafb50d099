/** The admin API's live feed (WebSocket `/__hookbench/live`, the route `live` of admin.ts): one JSON message per change. */
import type { BindingChange } from './bindings';
import type { DeliverySummary } from './deliveries';
import type { EventRow, InstanceEvent, InstanceLifecycle, InstanceRef } from './instances';
import type { CaptureSummary } from './sink';

export type LiveMessage =
  /** Once, when connected. */
  | { readonly type: 'hello' }
  /** Every request the receiver recorded. */
  | { readonly type: 'delivery'; readonly delivery: DeliverySummary }
  /** An instance created, woken, evicted (with its summary), deleted, or its events cleared. */
  | ({ readonly type: 'instance' } & InstanceLifecycle)
  /** An agent's new state, as the agents protocol broadcasts it to its clients. */
  | (InstanceRef & { readonly type: 'state'; readonly state: unknown })
  /** An event row the agent stored, without its payload. */
  | (InstanceRef & { readonly type: 'event'; readonly event: EventRow })
  /** A binding's data changed (written by the worker): an open view of it reads it again. */
  | ({ readonly type: 'binding' } & BindingChange)
  /** Every request the outbound sink captured, and how many older captures its bounds dropped so far (all sinks). */
  | { readonly type: 'outbound'; readonly capture: CaptureSummary; readonly dropped: number };

export type LiveMessageType = LiveMessage['type'];

/** The message types as values, for the doc check; the type below fails to compile when one is missing. */
export const LIVE_MESSAGE_TYPES = ['hello', 'delivery', 'instance', 'state', 'event', 'binding', 'outbound'] as const satisfies readonly LiveMessageType[];

type Exhaustive<Missing extends never> = Missing;
export type LiveMessageTypesListed = Exhaustive<Exclude<LiveMessageType, (typeof LIVE_MESSAGE_TYPES)[number]>>;

/** The live message that tells clients about `event`. */
export function instanceMessage(event: InstanceEvent): LiveMessage {
  switch (event.kind) {
    case 'state':
      return { type: 'state', namespace: event.namespace, name: event.name, state: event.state };
    case 'event':
      return { type: 'event', namespace: event.namespace, name: event.name, event: event.event };
    default:
      return { type: 'instance', ...event };
  }
}
