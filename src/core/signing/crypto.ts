import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type HmacAlgorithm = 'sha1' | 'sha256' | 'sha512';

/** HMAC over the concatenation of `parts`, fed piecewise so the body's bytes are never re-encoded. */
export function hmac(algorithm: HmacAlgorithm, key: string | Uint8Array, ...parts: (string | Uint8Array)[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Constant-time equality of two byte strings. Unequal lengths answer false after a comparison of
 * the same cost, so the time taken does not depend on where the inputs differ.
 */
export function safeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

/** Constant-time equality of two strings by their UTF-8 bytes. */
export function safeEqualText(a: string, b: string): boolean {
  return safeEqual(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes canonical base64 (padding required), or answers undefined: Node's decoder skips junk silently. */
export function decodeBase64Strict(text: string): Buffer | undefined {
  return BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}

const BASE64_VALUE = new Map([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c.charCodeAt(0), i]));

/**
 * Decodes the canonical base64 of a digest of `size` bytes, or answers undefined. Node's decoder
 * skips characters outside the alphabet (a short result shows them, and the padding must be `=`), accepts the URL-safe `-` and
 * `_`, and ignores the spare low bits of the last character, which must be zero in the one
 * canonical spelling; checking those directly avoids re-encoding on every verification.
 */
export function decodeBase64Digest(text: string, size: number): Buffer | undefined {
  const padding = (3 - (size % 3)) % 3;
  if (text.length !== Math.ceil(size / 3) * 4 || text.includes('-') || text.includes('_')) return undefined;
  if (padding > 0 && !text.endsWith('='.repeat(padding))) return undefined;
  const last = BASE64_VALUE.get(text.charCodeAt(text.length - 1 - padding));
  if (last === undefined || (last & ((1 << (2 * padding)) - 1)) !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === size ? bytes : undefined;
}

/** Decodes lower-case hex, the only case the providers send, or answers undefined. */
export function decodeHexStrict(text: string): Buffer | undefined {
  // Node's hex decoder stops at the first invalid pair, so a short result means bad input.
  const bytes = Buffer.from(text, 'hex');
  if (text.length === 0 || bytes.length * 2 !== text.length || text !== text.toLowerCase()) return undefined;
  return bytes;
}
