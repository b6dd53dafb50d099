/**
 * Fonts that did not draw the page, said at the top of the results instead of a silent fallback:
 * a web font whose load failed (`document.fonts` status `error`), one still loading when the
 * font wait gave up, and a chosen family that drew none of the text. For the custom font the
 * preview injected, the reason is found out: a file that is not a font, an HTTP error, an answer
 * that is not a font, a cross-origin font without CORS (Chromium loads web fonts in CORS mode).
 */
import { sniffFontFormat, type FontSource } from './fontFace';
import type { RenderedElement } from './previewProtocol';

export interface ReportedFonts {
  readonly elements: readonly RenderedElement[];
  /** The page's @font-face families and their `FontFace.status`. */
  readonly webFonts?: readonly { family: string; status: string }[];
  readonly fontsReady?: string;
}

export interface FontFailure {
  readonly family: string;
  /** failed: did not load; loading: still loading when the wait ended; unused: drew none of the text. */
  readonly kind: 'failed' | 'loading' | 'unused';
  /** The fonts that drew the text that asked for it first, most glyphs first. */
  readonly drawnWith: string[];
}

const same = (a: string | null | undefined, b: string) => a?.toLowerCase() === b.toLowerCase();

function drawnInstead(elements: readonly RenderedElement[], family: string): string[] {
  const glyphs = new Map<string, number>();
  for (const element of elements) {
    if (!same(element.requested[0], family)) continue;
    for (const font of element.fonts) if (!same(font.requestedAs, family)) glyphs.set(font.family, (glyphs.get(font.family) ?? 0) + font.glyphs);
  }
  return [...glyphs.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
}

/**
 * The fonts that did not draw what asked for them: every web font that failed or was still
 * loading, and `chosen` (the family the form applied) when no glyph was drawn as it.
 */
export function fontFailures(report: ReportedFonts, chosen?: string): FontFailure[] {
  const failures: FontFailure[] = [];
  const seen = new Set<string>();
  for (const face of report.webFonts ?? []) {
    const kind = face.status === 'error' ? 'failed' : face.status === 'loading' ? 'loading' : undefined;
    // A family with several faces, one loaded: the loaded one draws.
    const loaded = report.webFonts?.some((f) => same(f.family, face.family) && f.status === 'loaded');
    if (!kind || loaded || seen.has(face.family.toLowerCase())) continue;
    seen.add(face.family.toLowerCase());
    failures.push({ family: face.family, kind, drawnWith: drawnInstead(report.elements, face.family) });
  }
  if (chosen && !seen.has(chosen.toLowerCase())) {
    const asked = report.elements.some((e) => same(e.requested[0], chosen));
    const drew = report.elements.some((e) => e.fonts.some((f) => same(f.requestedAs, chosen)));
    if (asked && !drew) failures.push({ family: chosen, kind: 'unused', drawnWith: drawnInstead(report.elements, chosen) });
  }
  return failures;
}

/** The warning line: what went wrong, why when known, and what drew the text instead. */
export function fontFailureText(failure: FontFailure, reason?: string): string {
  const instead = failure.drawnWith.length > 0 ? `the text was drawn with ${failure.drawnWith.join(', ')}` : 'no text was drawn with it';
  switch (failure.kind) {
    case 'failed':
      return `Font '${failure.family}' did not load: ${reason ?? 'the browser could not load it'}; ${instead}.`;
    case 'loading':
      return `Font '${failure.family}' was still loading when the capture was taken; ${instead}.`;
    case 'unused':
      return `Font '${failure.family}' drew none of the text (it is not installed here, or has none of its characters); ${instead}.`;
  }
}

const printable = (bytes: Uint8Array) => `"${Array.from(bytes.subarray(0, 12), (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '·')).join('')}"`;

/**
 * Why a custom font the browser refused did not load, found out the way the browser got it: the
 * bytes of a file, or a GET of the URL (the first bytes only).
 */
export async function explainFontFailure(source: FontSource, fetchFont: typeof fetch, timeoutMs = 5_000): Promise<string> {
  if ('bytes' in source) {
    const name = source.fileName ?? 'the file';
    if (!sniffFontFormat(source.bytes))
      return `${name} is not a font (it does not start like a WOFF2, WOFF, TrueType or OpenType file, but with ${printable(source.bytes)})`;
    return `the browser's font checker refused ${name} (a damaged file, or tables it does not accept)`;
  }
  const url = source.url;
  const shown = url.startsWith('data:') ? 'the data: URL' : url;
  let response: Response;
  try {
    response = await fetchFont(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
    return `${shown} could not be fetched (${cause})`;
  }
  const head = await firstBytes(response, 12);
  if (!response.ok) return `${shown} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  if (!sniffFontFormat(head)) return `${shown} is not a font (${response.headers.get('content-type') ?? 'no content type'}, starting ${printable(head)})`;
  if (!url.startsWith('data:') && !response.headers.get('access-control-allow-origin'))
    return `${shown} has no Access-Control-Allow-Origin header, and a browser loads a web font from another origin only with CORS`;
  return `the browser's font checker refused ${shown} (a damaged font, or tables it does not accept)`;
}

async function firstBytes(response: Response, count: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    while (length < count) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, count);
}
