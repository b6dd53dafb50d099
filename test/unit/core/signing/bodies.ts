// Bodies that break naive signature code: each is signed and verified byte for byte.
const bigIntegers = '{"id":12345678901234567890123,"order_id":820982911946154508,"n":-0.0,"e":1e400}';

/** JSON-ish bodies, as text (the official libraries take strings). */
export const TEXT_BODIES: Readonly<Record<string, string>> = {
  'plain JSON': '{"action":"opened","number":1}',
  unicode: '{"title":"Zoë ✓ 日本語 🚀 مرحبا","sign":"\\u00e9 vs é"}',
  'CRLF line endings': '{\r\n  "a": 1,\r\n  "b": "two"\r\n}\r\n',
  'byte-order mark': '\uFEFF{"bom":true}',
  'big integers': bigIntegers,
  'escaped slashes': '{"url":"https:\\/\\/example.com\\/a"}',
  'trailing newline': '{"x":1}\n',
  '1 MiB': JSON.stringify({ data: 'x'.repeat(1024 * 1024 - 11) }),
};

/** The empty body, which the official libraries treat differently (see the policy in signing/). */
export const EMPTY = '';

export function bytes(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** Copies of `data` with one byte changed, at the start, the middle and the end. */
export function flips(data: Uint8Array): Buffer[] {
  if (data.length === 0) return [];
  const positions = [...new Set([0, Math.floor(data.length / 2), data.length - 1])];
  return positions.map((i) => {
    const copy = Buffer.from(data);
    copy[i] = copy[i]! ^ 0x01;
    return copy;
  });
}

/** Copies of a text with one character changed, at the start, the middle and the end. */
export function textFlips(text: string): string[] {
  const positions = [...new Set([0, Math.floor(text.length / 2), text.length - 1])];
  return positions.map((i) => text.slice(0, i) + String.fromCharCode(text.charCodeAt(i) ^ 0x01) + text.slice(i + 1));
}
