/**
 * A stored value as the explorer shows it: UTF-8 text when it is text, base64 otherwise, and never
 * more than MAX_SHOWN_VALUE_BYTES of it (a 25 MiB KV value must not travel to show one line).
 */
import { MAX_SHOWN_VALUE_BYTES, type ShownBytes } from '../../core/contract/bindings';

const strict = new TextDecoder('utf-8', { fatal: true });

/** Text, when `bytes` decode as UTF-8 (a cut may end inside a character: up to 3 bytes are dropped). */
function asText(bytes: Uint8Array, cut: boolean): string | undefined {
  for (let drop = 0; drop <= (cut ? 3 : 0) && drop < bytes.byteLength; drop++) {
    try {
      return strict.decode(bytes.subarray(0, bytes.byteLength - drop));
    } catch {
      // Try a shorter cut: the last character may be incomplete.
    }
  }
  return bytes.byteLength === 0 ? '' : undefined;
}

export function shownBytes(bytes: Uint8Array, max = MAX_SHOWN_VALUE_BYTES): ShownBytes {
  const cut = bytes.byteLength > max;
  const shown = cut ? bytes.subarray(0, max) : bytes;
  const text = asText(shown, cut);
  const base = text === undefined ? { encoding: 'base64' as const, value: Buffer.from(shown).toString('base64') } : { encoding: 'text' as const, value: text };
  return { ...base, size: bytes.byteLength, ...(cut ? { truncated: true as const } : {}) };
}
