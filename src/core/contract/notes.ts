/**
 * What a worker tells the receiver about a delivery it answered, for the deliveries log: the
 * provider, the entity, the verification outcome, the event it was stored as and its type, and
 * whether it was stored or recognised as a duplicate — found once, where the worker checked the
 * delivery, and never worked out again by the receiver (docs/architecture.md, "A webhook, from the
 * socket to the tree").
 *
 * They travel in the **delivery channel**: one object the receiver puts on the Request it hands
 * the worker, and reads back once the worker answered. The Request reaches the built-in worker's
 * router, its stub and its agent's `onRequest` as the very same object in this process, so the
 * router also leaves there what it already checked and parsed, for its agent to take instead of
 * doing it again. The channel is a property under a registered symbol rather than a WeakMap of
 * this module: the built-in worker is its own bundle with its own copy of this module, and
 * `Symbol.for` is the one key both copies share without module-level state. Deployed to
 * Cloudflare there is no channel; the worker notes nothing and each part checks for itself.
 *
 * Who may write them: any worker the runtime runs, the user's own included. The notes only label
 * the user's own deliveries log with what the worker that handled the request claims, and that
 * worker is the user's code, already running with the serve process's rights. What they may not be
 * is data from the wire: nothing from a client or an upstream can set a symbol-keyed property, so
 * an upstream a worker proxies cannot label deliveries, as it could when notes were
 * `x-hookbench-*` headers. {@link receivedNotes} keeps only well-formed notes.
 */

import type { EventRow } from './instances';

export interface DeliveryNotes {
  /** The provider the worker took the request for (`github`, `stripe`, … or `unknown`). */
  readonly provider?: string;
  readonly entity?: string;
  /** "valid", or the failure reason and its message: {@link verificationNote}. */
  readonly verification?: string;
  /** The id of the event the delivery was stored as (or recognised as a duplicate of). */
  readonly event?: string;
  /** The event's type (`push`, `invoice.paid`), as the worker read it from the headers or payload. */
  readonly eventType?: string;
  /** False when the delivery id had been processed already, so nothing was stored again. */
  readonly stored?: boolean;
}

/** A signature check's outcome, as src/core/signing answers it. */
export type Verdict = { readonly valid: true } | { readonly valid: false; readonly reason: string; readonly message: string };

/** The note of a check that passed. */
export const VERIFIED_NOTE = 'valid';

/**
 * How a check's outcome is noted, for a delivery and for an outbound capture alike:
 * {@link VERIFIED_NOTE}, or the reason (`mismatch`, `no_secret`, `stale`, …) and its message.
 */
export function verificationNote(verdict: Verdict): string {
  return verdict.valid ? VERIFIED_NOTE : `${verdict.reason}: ${verdict.message}`;
}

/** The reason a note gives for a failed check; `undefined` when it passed or there is no note. */
export function verificationReason(note: string | null | undefined): string | undefined {
  return note && note !== VERIFIED_NOTE ? note.split(':')[0] : undefined;
}

const CHANNEL = Symbol.for('hookbench.deliveryChannel');
/** Longer strings are cut: the notes are labels, and a worker's bug must not bloat the log. */
const MAX_NOTE = 2048;

/** One delivery's channel between the worker and the receiver. */
export interface DeliveryChannel {
  /** What the worker found, for the receiver's record: merged by {@link noteDelivery}. */
  notes: DeliveryNotes;
  /** What the worker's router already checked of the delivery, for its own agent; opaque here. */
  checked?: unknown;
}

/** The receiver's side: puts a fresh channel on the `request` it hands the worker. */
export function openDeliveryChannel(request: Request): DeliveryChannel {
  const channel: DeliveryChannel = { notes: {} };
  Object.defineProperty(request, CHANNEL, { value: channel, enumerable: false, configurable: true });
  return channel;
}

/** The worker's side: the channel the receiver put on `request`, or undefined (on Cloudflare, or a Request the worker made itself). */
export function deliveryChannel(request: Request): DeliveryChannel | undefined {
  const channel = (request as unknown as Record<symbol, unknown>)[CHANNEL];
  return typeof channel === 'object' && channel !== null ? (channel as DeliveryChannel) : undefined;
}

/** Adds `notes` to what the worker tells the receiver about `request`; nothing without a channel. */
export function noteDelivery(request: Request, notes: DeliveryNotes): void {
  const channel = deliveryChannel(request);
  if (channel) channel.notes = { ...channel.notes, ...notes };
}

/** The receiver's read of what the worker noted, keeping only the well-formed notes; `{}` when there are none. */
export function receivedNotes(channel: DeliveryChannel): DeliveryNotes {
  const raw: unknown = channel.notes;
  if (typeof raw !== 'object' || raw === null) return {};
  const given = raw as Record<string, unknown>;
  const text = (key: keyof DeliveryNotes) => (typeof given[key] === 'string' ? { [key]: (given[key] as string).slice(0, MAX_NOTE) } : {});
  return {
    ...text('provider'),
    ...text('entity'),
    ...text('verification'),
    ...text('event'),
    ...text('eventType'),
    ...(typeof given['stored'] === 'boolean' ? { stored: given['stored'] } : {}),
  };
}

/**
 * What an agent tells the runtime hosting it, for the live feed: an event row it stored. The
 * channel is a property of the agent's `ctx` under a registered symbol, for the reason the
 * delivery notes use one (the worker is its own bundle); on Cloudflare there is none and
 * {@link noteEventStored} does nothing.
 */
export interface InstanceNotices {
  eventStored(event: EventRow): void;
}

const INSTANCE_NOTICES = Symbol.for('hookbench.instanceNotices');

/** Gives the agent whose `ctx` this is a channel to the runtime. */
export function provideInstanceNotices(ctx: object, notices: InstanceNotices): void {
  Object.defineProperty(ctx, INSTANCE_NOTICES, { value: notices, enumerable: false, configurable: true });
}

/** Tells the runtime hosting this agent (if any) that `event` was stored; the payload stays behind. */
export function noteEventStored(ctx: object, event: EventRow): void {
  const notices = (ctx as Record<symbol, unknown>)[INSTANCE_NOTICES] as Partial<InstanceNotices> | undefined;
  if (typeof notices?.eventStored !== 'function') return;
  notices.eventStored({ id: event.id, type: event.type, action: event.action, title: event.title, timestamp: event.timestamp });
}
