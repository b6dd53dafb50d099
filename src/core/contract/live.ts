/** The admin API's live feed (WebSocket `/__hookbench/live`): one JSON message per change. */
import type { DeliverySummary } from './deliveries';
import type { InstanceEvent } from './instances';
import type { CaptureSummary } from './sink';

export const LIVE_PATH = '/__hookbench/live';

export type LiveMessage =
  /** Once, when connected. */
  | { readonly type: 'hello' }
  /** Every request the receiver recorded. */
  | { readonly type: 'delivery'; readonly delivery: DeliverySummary }
  | ({ readonly type: 'instance' } & InstanceEvent)
  /** Every request the outbound sink captured. */
  | { readonly type: 'outbound'; readonly capture: CaptureSummary };

export type LiveMessageType = LiveMessage['type'];

/** The message types as values, for the doc check; the type below fails to compile when one is missing. */
export const LIVE_MESSAGE_TYPES = ['hello', 'delivery', 'instance', 'outbound'] as const satisfies readonly LiveMessageType[];

type Exhaustive<Missing extends never> = Missing;
export type LiveMessageTypesListed = Exhaustive<Exclude<LiveMessageType, (typeof LIVE_MESSAGE_TYPES)[number]>>;
