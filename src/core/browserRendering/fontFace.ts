/**
 * The seed's custom-font injection (§2.1–2.2): an `@font-face` rule for a font given by URL or by
 * its bytes (a data URL with the right MIME type and `format()` hint), plus the rule that applies
 * the family to the body with a generic fallback — the `addStyleTag` content Cloudflare documents.
 */

export type FontFormat = 'woff2' | 'woff' | 'truetype' | 'opentype';

const BY_EXTENSION: Record<string, { format: FontFormat; mime: string }> = {
  woff2: { format: 'woff2', mime: 'font/woff2' },
  woff: { format: 'woff', mime: 'font/woff' },
  ttf: { format: 'truetype', mime: 'font/ttf' },
  otf: { format: 'opentype', mime: 'font/otf' },
};

/** The format of font bytes from their signature (the file name can lie). */
export function sniffFontFormat(bytes: Uint8Array): FontFormat | undefined {
  const head = Buffer.from(bytes.subarray(0, 4)).toString('latin1');
  if (head === 'wOF2') return 'woff2';
  if (head === 'wOFF') return 'woff';
  if (head === 'OTTO') return 'opentype';
  if (head === '\u0000\u0001\u0000\u0000' || head === 'true') return 'truetype';
  return undefined;
}

export function formatFromName(name: string): FontFormat | undefined {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(name)?.[1]?.toLowerCase();
  return extension ? BY_EXTENSION[extension]?.format : undefined;
}

const MIME: Record<FontFormat, string> = { woff2: 'font/woff2', woff: 'font/woff', truetype: 'font/ttf', opentype: 'font/otf' };

export class FontFaceError extends Error {
  override readonly name = 'FontFaceError';
}

export type FontSource = { readonly url: string } | { readonly bytes: Uint8Array; readonly fileName?: string };

export interface FontFaceOptions {
  readonly family: string;
  readonly source: FontSource;
  readonly weight?: string;
  readonly style?: 'normal' | 'italic' | 'oblique';
  /** The generic family after the custom one (default sans-serif). */
  readonly fallback?: 'serif' | 'sans-serif' | 'monospace' | 'cursive' | 'fantasy';
  /**
   * `block` (the default) makes text wait for the face instead of drawing the fallback first, so
   * a capture shows the injected font or, after the block period, says clearly that it failed.
   */
  readonly display?: 'auto' | 'block' | 'swap' | 'fallback' | 'optional';
}

const cssString = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\a ')}'`;

/** The `src` descriptor: a URL with its format hint, or a base64 data URL of the bytes. */
export function fontSrc(source: FontSource): string {
  if ('url' in source) {
    let parsed: URL;
    try {
      parsed = new URL(source.url);
    } catch {
      throw new FontFaceError(`the font URL ${source.url} is not a URL`);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:' && parsed.protocol !== 'data:') throw new FontFaceError('a font URL is http(s) or data:');
    const format = formatFromName(parsed.pathname);
    return `url(${cssString(source.url)})${format ? ` format('${format}')` : ''}`;
  }
  const format = sniffFontFormat(source.bytes) ?? (source.fileName ? formatFromName(source.fileName) : undefined);
  if (!format) throw new FontFaceError(`${source.fileName ?? 'the font'} is not a WOFF2, WOFF, TrueType or OpenType font`);
  return `url('data:${MIME[format]};base64,${Buffer.from(source.bytes).toString('base64')}') format('${format}')`;
}

/** The `addStyleTag` content: the @font-face rule, then the body rule with its fallback. */
export function fontFaceCss(options: FontFaceOptions): string {
  const family = options.family.trim();
  if (family === '' || /[;{}<>]/.test(family)) throw new FontFaceError('a font family name is non-empty and has no ; { } < or >');
  const weight = options.weight ?? 'normal';
  if (!/^(normal|bold|lighter|bolder|[1-9]00)( [1-9]00)?$/.test(weight)) throw new FontFaceError(`font-weight "${weight}" is not normal, bold or 100–900`);
  const descriptors = [
    `font-family: ${cssString(family)}`,
    `src: ${fontSrc(options.source)}`,
    `font-weight: ${weight}`,
    `font-style: ${options.style ?? 'normal'}`,
    `font-display: ${options.display ?? 'block'}`,
  ];
  return `@font-face { ${descriptors.join('; ')}; } body { font-family: ${cssString(family)}, ${options.fallback ?? 'sans-serif'}; }`;
}
