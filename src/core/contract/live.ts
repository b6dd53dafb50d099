/**
 * The admin API's live feed (WebSocket `/__hookbench/live`, the route `live` of admin.ts): one JSON
 * message per change, a frame each; a client that adds `?batch=1` takes frames of several (docs/admin-api.md, "Live feed").
 * A client reads each message on arrival with `readLiveMessage`.
 */
import { BINDING_KINDS, type BindingChange } from './bindings';
import { readDeliverySummary, type DeliverySummary } from './deliveries';
import { readEventRow, readInstanceSummary, type EventRow, type InstanceEvent, type InstanceLifecycle, type InstanceRef } from './instances';
import { anything, byTag, count, oneOf, optional, shape, stepInto, text, type Reader } from './shape';
import { readCaptureSummary, type CaptureSummary } from './sink';

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

type Message<T extends LiveMessageType> = Extract<LiveMessage, { readonly type: T }>;
type Lifecycle = Message<'instance'>;
const withSummary = shape<Extract<Lifecycle, { readonly instance: unknown }>>({
  type: oneOf('instance'),
  kind: oneOf('created', 'woken', 'evicted'),
  namespace: text,
  name: text,
  instance: readInstanceSummary,
});
const withoutSummary = shape<Exclude<Lifecycle, { readonly instance: unknown }>>({
  type: oneOf('instance'),
  kind: oneOf('deleted', 'changed'),
  namespace: text,
  name: text,
});

/** One message of the feed, read on arrival: a ShapeError names what in it was wrong. */
export const readLiveMessage: Reader<LiveMessage> = byTag<LiveMessage, 'type'>('type', {
  hello: shape<Message<'hello'>>({ type: oneOf('hello') }),
  delivery: shape<Message<'delivery'>>({ type: oneOf('delivery'), delivery: readDeliverySummary }),
  instance: byTag<Lifecycle, 'kind'>('kind', {
    created: withSummary,
    woken: withSummary,
    evicted: withSummary,
    deleted: withoutSummary,
    changed: withoutSummary,
  }),
  state: shape<Message<'state'>>({ type: oneOf('state'), namespace: text, name: text, state: anything }),
  event: shape<Message<'event'>>({ type: oneOf('event'), namespace: text, name: text, event: readEventRow }),
  binding: shape<Message<'binding'>>({ type: oneOf('binding'), kind: oneOf(...BINDING_KINDS), target: optional(text) }),
  outbound: shape<Message<'outbound'>>({ type: oneOf('outbound'), capture: readCaptureSummary, dropped: count }),
});

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

/**
 * The messages of a frame, in the order they were sent (either shape formatLiveFrame writes), each
 * read by readLiveMessage. Throws SyntaxError for a frame that is not JSON, and a ShapeError naming
 * the message and what in it was wrong (`[3].delivery.status: expected a whole number, got "200"`).
 */
export function parseLiveFrame(frame: string): LiveMessage[] {
  const parsed: unknown = JSON.parse(frame);
  return Array.isArray(parsed) ? parsed.map((message: unknown, i) => stepInto(`[${i}]`, () => readLiveMessage(message))) : [readLiveMessage(parsed)];
}
