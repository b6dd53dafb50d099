/**
 * Instance names → file names, injectively and safely. Any string is a valid Durable Object name
 * ("../../x", "a/b", "%2F", 300 characters, emoji); a file name must not contain separators, must
 * not be "." or "..", must not collide case-insensitively (macOS, Windows), and must stay under
 * 255 bytes. Letters are lower-case ASCII and digits and "-" pass through; every other UTF-8 byte
 * (upper case included) becomes "_XX" (hex), so distinct names give distinct encodings. Encodings
 * too long for a file name keep a readable prefix and add the SHA-256 of the name.
 */
import { createHash } from 'node:crypto';

const SAFE = /^[a-z0-9-]$/;
const MAX_PLAIN = 150;

export function encodeName(name: string): string {
  let out = 'n';
  for (const byte of Buffer.from(name, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += SAFE.test(ch) ? ch : '_' + byte.toString(16).padStart(2, '0');
  }
  if (out.length <= MAX_PLAIN) return out;
  const digest = createHash('sha256').update(name, 'utf8').digest('hex');
  return `h${out.slice(1, 80)}~${digest}`;
}

/** The name back from a plain encoding; hashed encodings (long names) cannot be decoded. */
export function decodeName(encoded: string): string | undefined {
  if (!encoded.startsWith('n')) return undefined;
  const bytes: number[] = [];
  for (let i = 1; i < encoded.length; i++) {
    const ch = encoded[i]!;
    if (ch === '_') {
      const hex = encoded.slice(i + 1, i + 3);
      if (!/^[0-9a-f]{2}$/.test(hex)) return undefined;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (SAFE.test(ch)) bytes.push(ch.charCodeAt(0));
    else return undefined;
  }
  return Buffer.from(bytes).toString('utf8');
}
