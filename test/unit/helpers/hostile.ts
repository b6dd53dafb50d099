// Generated hostile inputs for the fuzz tests and the long fuzz run in the benchmarks: a seeded
// generator (a failure names its seed, so it can be replayed) of strings, bytes, paths, headers
// and JSON values chosen to break parsers.

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Hostile {
  readonly random: () => number;

  constructor(readonly seed: number) {
    this.random = rng(seed);
  }

  int(max: number): number {
    return Math.floor(this.random() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  /** Pieces that break naive parsers: traversal, encodings, separators, control and wide characters. */
  static readonly PIECES = [
    '..',
    '../',
    '..\\',
    '%2e%2e',
    '%2E%2E%2F',
    '%00',
    '\u0000',
    '\r\n',
    '\n',
    '\t',
    ' ',
    '/',
    '//',
    '\\',
    '?',
    '#',
    '&',
    '=',
    ';',
    ',',
    ':',
    '"',
    "'",
    '`',
    '<script>',
    '{',
    '}',
    '[',
    ']',
    '$',
    '%',
    '%%',
    '%zz',
    '\u202e',
    '\ufeff',
    'é',
    '你好',
    '😀',
    '\ud800',
    'A'.repeat(300),
    'CON',
    'NUL',
    'aux',
    '.git',
    '~',
    '*',
    '|',
    '-1',
    '0',
    '1e309',
    'NaN',
    'null',
    'undefined',
    '__proto__',
    'constructor',
    'prototype',
    't=',
    'v1=',
    'sha256=',
    'sha1=',
    'v1,',
    'whsec_',
    'Bearer ',
    'base64',
    '====',
    'ZZZZ',
    'deadbeef',
    'DEADBEEF',
  ];

  text(maxPieces = 6): string {
    let out = '';
    const n = 1 + this.int(maxPieces);
    for (let i = 0; i < n; i++) out += this.chance(0.7) ? this.pick(Hostile.PIECES) : String.fromCharCode(this.int(0x2fff));
    return out;
  }

  bytes(max = 512): Buffer {
    const out = Buffer.alloc(this.int(max));
    for (let i = 0; i < out.length; i++) out[i] = this.int(256);
    return out;
  }

  /** Percent-encodes the UTF-8 bytes (lone surrogates become U+FFFD), unlike encodeURIComponent which throws on them. */
  encode(text: string): string {
    return Array.from(Buffer.from(text, 'utf8'), (b) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    ).join('');
  }

  /** A header value HTTP can carry (Latin-1, no CR/LF): hostile content, legal framing. */
  headerValue(): string {
    return Array.from(this.text(), (c) => (c.charCodeAt(0) > 255 || c === '\r' || c === '\n' || c === '\u0000' ? '?' : c))
      .join('')
      .slice(0, 2000);
  }

  /** A request path: segments of hostile text, encoded or raw (raw may be refused by the HTTP parser itself). */
  path(prefixes: readonly string[]): string {
    const segments = Array.from({ length: this.int(5) }, () => (this.chance(0.5) ? this.encode(this.text(3)) : this.text(2).replace(/[\s#?]/g, '')));
    return `${this.pick(prefixes)}${segments.join('/')}`;
  }

  json(depth = 0): unknown {
    const kind = this.int(depth > 4 ? 5 : 8);
    switch (kind) {
      case 0:
        return this.text();
      case 1:
        return this.pick([0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.1, Number.MAX_SAFE_INTEGER]);
      case 2:
        return this.chance(0.5);
      case 3:
        return null;
      case 4:
        return this.int(100000);
      case 5:
      case 6: {
        const object: Record<string, unknown> = {};
        for (let i = 0, n = this.int(6); i < n; i++)
          object[this.chance(0.3) ? this.pick(['__proto__', 'constructor', 'toString', 'url', 'html', 'viewport']) : this.text(2)] = this.json(depth + 1);
        return object;
      }
      default:
        return Array.from({ length: this.int(5) }, () => this.json(depth + 1));
    }
  }
}
