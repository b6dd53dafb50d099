/**
 * Queue message bodies as Cloudflare encodes them by `contentType`: `v8` (the default, structured
 * clone), `json`, `text` and `bytes`; the limits a producer meets; and the errors a worker sees for
 * them, with the texts of workerd and Miniflare (wrangler dev 4.86.0): a wrong body is a TypeError
 * naming the type, a limit crossed is the platform's opaque `Unknown Internal Error (15000)` (the
 * reason goes to Hookbench's log, see `LimitError`).
 */
import * as v8 from 'node:v8';
import { toArrayBuffer } from './values';

export type ContentType = 'v8' | 'json' | 'text' | 'bytes';
const TYPES: readonly string[] = ['v8', 'json', 'text', 'bytes'];

export const MAX_MESSAGE_BYTES = 128_000;
export const MAX_BATCH_MESSAGES = 100;
export const MAX_BATCH_BYTES = 256_000;
/** Miniflare's bound for delaySeconds and delivery_delay (24 h). */
export const MAX_DELAY_SECONDS = 86_400;

/** What the worker sees when a limit is crossed: workerd's text. */
export const INTERNAL_ERROR = 'Unknown Internal Error (15000)';

/** A limit crossed: the worker sees `Unknown Internal Error (15000)`, `reason` is for the log. */
export class LimitError extends Error {
  constructor(readonly reason: string) {
    super(INTERNAL_ERROR);
    this.name = 'Error';
  }
}

const typeName = (value: unknown) => (value === null ? 'null' : typeof value);

export function encodeBody(method: string, body: unknown, contentType: string | undefined): { bytes: Uint8Array; type: ContentType } {
  const type = (contentType ?? 'v8') as ContentType;
  if (!TYPES.includes(type)) throw new TypeError(`Unsupported queue message content type: ${String(contentType)}`);
  let bytes: Uint8Array;
  switch (type) {
    case 'text':
      if (typeof body !== 'string') throw new TypeError(`Content Type "text" requires a value of type string, but received: ${typeName(body)}`);
      bytes = new TextEncoder().encode(body);
      break;
    case 'bytes':
      // workerd takes views only: a bare ArrayBuffer is refused as an "object".
      if (!ArrayBuffer.isView(body)) throw new TypeError(`Content Type "bytes" requires a value of type ArrayBufferView, but received: ${typeName(body)}`);
      bytes = new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
      break;
    case 'json':
      // As workerd: undefined is sent as null.
      bytes = new TextEncoder().encode(JSON.stringify(body) ?? 'null');
      break;
    default:
      try {
        bytes = new Uint8Array(v8.serialize(body));
      } catch (error) {
        throw new Error(`Queue ${method} failed: ${(error as Error).message}`, { cause: error });
      }
  }
  if (bytes.byteLength > MAX_MESSAGE_BYTES) throw new LimitError(`message length of ${bytes.byteLength} bytes exceeds limit of ${MAX_MESSAGE_BYTES}`);
  return { bytes, type };
}

export function decodeBody(bytes: Uint8Array, type: ContentType): unknown {
  switch (type) {
    case 'text':
      return new TextDecoder().decode(bytes);
    case 'bytes':
      return toArrayBuffer(bytes);
    case 'json':
      return JSON.parse(new TextDecoder().decode(bytes));
    default:
      return v8.deserialize(Buffer.from(bytes));
  }
}

/** A delay in whole seconds (a fraction is cut, as workerd's integer conversion does), 0 to 24 h. */
export function checkDelay(delaySeconds: unknown): number {
  if (delaySeconds === undefined) return 0;
  const seconds = Math.trunc(Number(delaySeconds));
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_DELAY_SECONDS) {
    throw new LimitError(`message delay ${String(delaySeconds)} is invalid: delaySeconds must be an integer from 0 to ${MAX_DELAY_SECONDS}`);
  }
  return seconds;
}
