/**
 * Queue message bodies as Cloudflare encodes them by `contentType`: `v8` (the default, structured
 * clone), `json`, `text` and `bytes`; and the size limits a producer meets.
 */
import * as v8 from 'node:v8';
import { toArrayBuffer } from './values';

export type ContentType = 'v8' | 'json' | 'text' | 'bytes';
const TYPES: readonly string[] = ['v8', 'json', 'text', 'bytes'];

export const MAX_MESSAGE_BYTES = 128_000;
export const MAX_BATCH_MESSAGES = 100;
export const MAX_BATCH_BYTES = 256_000;
export const MAX_DELAY_SECONDS = 43_200;

export function encodeBody(method: string, body: unknown, contentType: string | undefined): { bytes: Uint8Array; type: ContentType } {
  const type = (contentType ?? 'v8') as ContentType;
  if (!TYPES.includes(type)) throw new TypeError(`Unknown Queue content type "${String(contentType)}"; expected "v8", "json", "text" or "bytes".`);
  let bytes: Uint8Array;
  switch (type) {
    case 'text':
      if (typeof body !== 'string') throw new TypeError(`Content Type "text" requires a value of type string, but received ${typeof body}`);
      bytes = new TextEncoder().encode(body);
      break;
    case 'bytes':
      if (!(body instanceof ArrayBuffer) && !ArrayBuffer.isView(body)) throw new TypeError(`Content Type "bytes" requires a value of type ArrayBuffer, but received ${typeof body}`);
      bytes = body instanceof ArrayBuffer ? new Uint8Array(body.slice(0)) : new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
      break;
    case 'json': {
      const text = JSON.stringify(body);
      if (text === undefined) throw new TypeError(`Queue ${method} failed: the body cannot be serialized as JSON`);
      bytes = new TextEncoder().encode(text);
      break;
    }
    default:
      try {
        bytes = new Uint8Array(v8.serialize(body));
      } catch (error) {
        throw new Error(`Queue ${method} failed: ${(error as Error).message}`, { cause: error });
      }
  }
  if (bytes.byteLength > MAX_MESSAGE_BYTES) {
    throw new Error(`Queue ${method} failed: message length of ${bytes.byteLength} bytes exceeds limit of ${MAX_MESSAGE_BYTES}`);
  }
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

export function checkDelay(method: string, delaySeconds: unknown): number {
  if (delaySeconds === undefined) return 0;
  if (typeof delaySeconds !== 'number' || !Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
    throw new Error(`Queue ${method} failed: delaySeconds must be an integer from 0 to ${MAX_DELAY_SECONDS}`);
  }
  return delaySeconds;
}
