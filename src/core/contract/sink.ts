/** What the outbound sink (`POST /__hookbench/sink/<name>`) captured, as the admin API and the live feed describe it, each with its reader (shape.ts). */
import { count, dictOf, listOf, nullable, oneOf, shape, text } from './shape';

/** One captured request, byte for byte. */
export interface Capture {
  readonly id: string;
  readonly sink: string;
  readonly time: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly bodyBase64: string;
  /** "valid", the failure reason, or null when no sink secret is set. */
  readonly verification: string | null;
}

/** A capture on the live feed: without the base64 copy of its body. */
export type CaptureSummary = Omit<Capture, 'bodyBase64'>;

const CAPTURE_FIELDS = { id: text, sink: text, time: text, headers: dictOf(text), body: text, verification: nullable(text) } as const;
export const readCaptureSummary = shape<CaptureSummary>(CAPTURE_FIELDS);

/** The sink's answer to the request it captured. */
export interface SinkReceipt {
  readonly received: true;
  readonly id: string;
  readonly verification: string | null;
}

export const readSinkReceipt = shape<SinkReceipt>({ received: oneOf(true), id: text, verification: nullable(text) });

/**
 * The sink's bounds (docs/admin-api.md, "Outbound sink"). The sink takes requests without a token,
 * so whatever reaches it is held in the serve process's memory: these keep that bounded.
 */
export interface SinkLimits {
  /** Body bytes one capture may hold; a longer body is answered 413 and kept nowhere. */
  readonly maxCaptureBytes: number;
  /** Bytes (bodies and headers) all captures together may hold; the oldest are dropped to stay within it. */
  readonly maxTotalBytes: number;
  /** Captures kept at most; the oldest are dropped beyond it. */
  readonly maxCount: number;
}

/**
 * Outbound webhooks from agents are small (a chat line, a signed JSON event of a few KiB), so
 * 1 MiB each leaves room for the largest we know of, and 32 MiB keeps 1000 typical captures or 32
 * maximal ones, about what one sql.js database snapshots in tens of milliseconds.
 */
export const SINK_LIMITS: SinkLimits = { maxCaptureBytes: 1024 * 1024, maxTotalBytes: 32 * 1024 * 1024, maxCount: 1000 };

/** `GET /__hookbench/sink` and `GET /__hookbench/sink/<name>`: the newest captures, and what the bounds dropped. */
export interface CaptureList {
  readonly captures: Capture[];
  /** Older captures (of the sink asked, or of all) dropped to stay within {@link SinkLimits}. */
  readonly dropped: number;
}

export const readCaptureList = shape<CaptureList>({ captures: listOf(shape<Capture>({ ...CAPTURE_FIELDS, bodyBase64: text })), dropped: count });

/** The 413's reason for a body over the per-capture cap (`declared`: its Content-Length, when it gave one). */
export function captureTooLargeMessage(limit: number, declared?: number): string {
  const size = declared === undefined ? 'this body is larger' : `this body declares ${declared} bytes`;
  return `the sink keeps captures of at most ${limit} bytes (${mebibytes(limit)}): ${size}, so it was not captured`;
}

/** What the Outbound view says under its captures when the bounds dropped some. */
export function droppedNote(dropped: number): string {
  return `${dropped} older capture${dropped === 1 ? '' : 's'} dropped to stay within the sink's budget`;
}

function mebibytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Number(mib.toFixed(1))} MiB` : `${Number((bytes / 1024).toFixed(1))} KiB`;
}
