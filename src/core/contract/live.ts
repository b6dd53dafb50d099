/**
 * The admin API's live feed (WebSocket `/__hookbench/live`, the route `live` of admin.ts): one JSON
 * message per change, a frame each; a client that adds `?batch=1` takes frames of several (docs/admin-api.md, "Live feed").
 */
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

/** The query parameter, and its value, a client adds to the feed's URL to take several messages a frame. */
const BATCHED = { name: 'batch', value: '1' } as const;
export const LIVE_BATCHED_QUERY = `${BATCHED.name}=${BATCHED.value}`;

/** How long a batching feed gathers messages after a frame before it sends the next (a lone message goes at once). */
export const LIVE_BATCH_MS = 50;

/** Whether the feed's client asked for frames of several messages. */
export function liveWantsBatches(url: URL): boolean {
  return url.searchParams.get(BATCHED.name) === BATCHED.value;
}

/** A frame of the feed: one message as its JSON, several as a JSON array of them. */
export function formatLiveFrame(messages: readonly LiveMessage[]): string {
  return JSON.stringify(messages.length === 1 ? messages[0] : messages);
}

/** The messages of a frame, in the order they were sent (either shape formatLiveFrame writes). */
export function parseLiveFrame(text: string): LiveMessage[] {
  const parsed = JSON.parse(text) as LiveMessage | LiveMessage[];
  return Array.isArray(parsed) ? parsed : [parsed];
}
