/**
 * What the serve process tells its clients about the requests it received: declared once, for
 * the deliveries log (server), the admin API and its live feed, and the extension's views; what a
 * client receives has its reader beside it (shape.ts).
 */
import { bool, count, dictOf, nullable, number, oneOf, optional, shape, text, type Reader } from './shape';

/** One request the receiver saw, accepted or rejected, with its raw bytes and what the worker said about it. */
export interface DeliveryRecord {
  readonly id: string;
  readonly time: string;
  readonly method: string;
  readonly path: string;
  readonly requestHeaders: Record<string, string>;
  readonly requestBody: Buffer;
  readonly requestTruncated: boolean;
  readonly status: number;
  readonly responseHeaders: Record<string, string>;
  readonly responseBody: string;
  readonly durationMs: number;
  readonly provider: string | null;
  readonly entity: string | null;
  /** "valid", a failure reason with its message, or null when the worker said nothing. */
  readonly verification: string | null;
  /** The id of the event the delivery was stored as (or recognised as a duplicate of). */
  readonly event?: string | null;
  /** The event type the provider's scheme locates in the request (`push`, `invoice.paid`), when the provider is known. */
  readonly eventType?: string | null;
  /**
   * True when the delivery id had been processed already: the answer was still 200 (so the
   * provider stops retrying), but nothing was stored or processed again.
   */
  readonly duplicate?: boolean;
  /** Where the request came from: Hookbench's own sender, a replay, a relay, a public host, a retry. Absent: another local client. */
  readonly source?: DeliverySource;
  /** The provider's next attempt at this delivery, when `serve --retries` scheduled one (docs/chaos.md, "Provider retries while developing"). */
  readonly nextRetry?: NextRetry;
}

/** A retry `serve --retries` scheduled for a delivery that failed: "retry 2 of 8 in 4 s". */
export interface NextRetry {
  /** Its number among the provider's retries, 1 for the first. */
  readonly retry: number;
  /** How many retries the provider's schedule has. */
  readonly retries: number;
  /** When it is sent (ISO 8601): the provider's delay, compressed by `--retry-scale`. */
  readonly at: string;
}

const readNextRetry = shape<NextRetry>({ retry: count, retries: count, at: text });

/**
 * Where a delivery came from. `send` and `replay` are Hookbench's own senders; `relay` is a
 * forwarder on this machine (the smee client, `stripe listen`); `public` is a request whose `Host`
 * names no loopback address, as a tunnel (ngrok, cloudflared) passes it on.
 */
export interface DeliverySource {
  readonly kind: 'send' | 'replay' | 'relay' | 'public' | 'retry';
  /** The relay's name (`smee`, `stripe`) or the public host name. */
  readonly name?: string;
  /** A retry's: the id of the delivery it retries (the first attempt), and its number among the retries. */
  readonly of?: string;
  readonly retry?: number;
  /** What the relay did to the request that explains its verification, e.g. {@link RELAY_REENCODED_NOTE}. */
  readonly note?: string;
}

const readDeliverySource = shape<DeliverySource>({
  kind: oneOf('send', 'replay', 'relay', 'public', 'retry'),
  name: optional(text),
  of: optional(text),
  retry: optional(count),
  note: optional(text),
});

/**
 * The request header Hookbench's senders and relays name themselves in (`send`, `replay`,
 * `smee; body=changed`, `stripe`). Read only from loopback clients; the receiver keeps it out of
 * the recorded headers and records a {@link DeliverySource} instead.
 */
export const SOURCE_HEADER = 'hookbench-source';

/** The source header of a retry `serve --retries` sends: `retry; of=<first attempt's id>; n=<retry number>`. */
export function retrySourceHeader(of: string, retry: number): string {
  return `retry; of=${of}; n=${retry}`;
}

/** The first attempt's id and the retry number of a {@link retrySourceHeader}'s parameters (lower-cased), or undefined. */
export function parseRetrySource(params: readonly string[]): { of: string; retry: number } | undefined {
  const of = params.find((p) => p.startsWith('of='))?.slice('of='.length) ?? '';
  const n = params.find((p) => p.startsWith('n='))?.slice('n='.length) ?? '';
  if (!/^[0-9a-f-]{36}$/.test(of) || !/^[1-9]\d?$/.test(n)) return undefined;
  return { of, retry: Number(n) };
}

/** What a delivery says when the relay sent re-encoded JSON instead of the bytes the provider signed. */
export const RELAY_REENCODED_NOTE = 'relayed: body re-encoded by the relay';

/** A delivery without its bodies, for lists and the live feed. */
export type DeliverySummary = Omit<DeliveryRecord, 'requestBody' | 'responseBody'> & { readonly requestBytes: number };

/** The fields every delivery sent to a client has, whatever it carries of its bodies. */
export const DELIVERY_FIELDS = {
  id: text,
  time: text,
  method: text,
  path: text,
  requestHeaders: dictOf(text),
  requestTruncated: bool,
  status: count,
  responseHeaders: dictOf(text),
  durationMs: number,
  provider: nullable(text),
  entity: nullable(text),
  verification: nullable(text),
  event: optional(nullable(text)),
  eventType: optional(nullable(text)),
  duplicate: optional(bool),
  source: optional(readDeliverySource),
  nextRetry: optional(readNextRetry),
} as const;

export const readDeliverySummary: Reader<DeliverySummary> = shape<DeliverySummary>({ ...DELIVERY_FIELDS, requestBytes: count });

/** The words the views, the log and the replay notification use for a duplicate. */
export const DUPLICATE_NOTE = 'duplicate — not processed again';

/** The answer header the receiver adds to a 200 for a delivery id processed before: `hookbench-outcome: duplicate`. */
export const OUTCOME_HEADER = 'hookbench-outcome';
