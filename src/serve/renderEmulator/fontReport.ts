/**
 * Which fonts really drew the page: for every element with text of its own, the families its CSS
 * asks for and the platform fonts Chromium used for its glyphs (CDP `CSS.getPlatformFontsForNode`,
 * the same data as DevTools' "Rendered Fonts"), each family once with its faces, each tied to the
 * requested family it stands for.
 *
 * A drawn font stands for: a named family it is (case-insensitive); for a web font, the first
 * requested family declared with @font-face and loaded; otherwise the first generic family in the
 * list (the system's choice for it, per script). A metric-compatible stand-in (Liberation Serif for
 * Times New Roman, …) stands for the family it replaces and says so with `standIn`, since Debian
 * cannot install the Microsoft fonts. The element is flagged `fallback` when any glyph
 * was drawn by a font that does not stand for the first requested family.
 */
import type { Page } from 'puppeteer-core';
import { isStandIn } from '../../core/browserRendering/fontCatalog';
import type { ElementFonts, FontReport } from '../../core/browserRendering/fontReportAnswer';

// These functions run in the page. The Node program has no DOM types, so the globals they touch
// are declared loosely here, for this module only.
/* eslint-disable @typescript-eslint/no-explicit-any */
type DomNode = any;
declare const document: any;
declare const CSS: { escape(text: string): string };

const GENERIC = new Set([
  'serif',
  'sans-serif',
  'monospace',
  'cursive',
  'fantasy',
  'system-ui',
  'emoji',
  'math',
  'fangsong',
  'ui-serif',
  'ui-sans-serif',
  'ui-monospace',
  'ui-rounded',
]);

const unquote = (name: string) =>
  name
    .trim()
    .replace(/^(['"])(.*)\1$/, '$2')
    .trim();

export function parseFontFamily(value: string): string[] {
  return value
    .split(',')
    .map(unquote)
    .filter((name) => name !== '');
}

export function standsFor(font: { familyName: string; isCustomFont: boolean }, requested: string[], loadedWebFonts: Set<string>): string | null {
  const named = requested.find((family) => !GENERIC.has(family.toLowerCase()) && family.toLowerCase() === font.familyName.toLowerCase());
  if (named) return named;
  const replaced = font.isCustomFont ? undefined : requested.find((family) => isStandIn(family, font.familyName));
  if (replaced) return replaced;
  if (font.isCustomFont) {
    const web = requested.find((family) => loadedWebFonts.has(family.toLowerCase()));
    if (web) return web;
  }
  return requested.find((family) => GENERIC.has(family.toLowerCase())) ?? null;
}

export interface PlatformFont {
  readonly familyName: string;
  readonly postScriptName: string;
  readonly isCustomFont: boolean;
  readonly glyphCount: number;
}

/**
 * CDP lists a platform font once per face (LiberationSans, LiberationSans-Bold): one entry per
 * family (and web or installed), glyphs added up, faces most glyphs first, in first-seen order.
 */
export function byFamily(fonts: readonly PlatformFont[]): (Omit<PlatformFont, 'postScriptName'> & { faces: string[] })[] {
  const families = new Map<string, { familyName: string; isCustomFont: boolean; glyphCount: number; faces: { name: string; glyphs: number }[] }>();
  for (const font of fonts) {
    const key = `${font.isCustomFont}:${font.familyName.toLowerCase()}`;
    const family = families.get(key) ?? { familyName: font.familyName, isCustomFont: font.isCustomFont, glyphCount: 0, faces: [] };
    family.glyphCount += font.glyphCount;
    family.faces.push({ name: font.postScriptName, glyphs: font.glyphCount });
    families.set(key, family);
  }
  return [...families.values()].map((f) => ({ ...f, faces: f.faces.sort((a, b) => b.glyphs - a.glyphs).map((face) => face.name) }));
}

interface TextElement {
  readonly selector: string;
  readonly text: string;
}

/** Marks each element that has its own non-blank text with a data attribute, and describes it. */
function markTextElements(): TextElement[] {
  const out: { selector: string; text: string }[] = [];
  const path = (el: DomNode): string => {
    const parts: string[] = [];
    for (let node: DomNode = el; node && node.nodeType === 1 && parts.length < 6; node = node.parentElement) {
      if (node.id) {
        parts.unshift(`#${CSS.escape(node.id)}`);
        break;
      }
      const parent: DomNode = node.parentElement;
      const tag = node.tagName.toLowerCase();
      const same = parent ? Array.from(parent.children).filter((c: DomNode) => c.tagName === node.tagName) : [];
      parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(node) + 1})` : tag);
    }
    return parts.join(' > ');
  };
  let n = 0;
  for (const el of Array.from(document.querySelectorAll('body, body *') as Iterable<DomNode>)) {
    if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) continue;
    const own = Array.from(el.childNodes)
      .filter((c: DomNode) => c.nodeType === 3)
      .map((c: DomNode) => c.textContent ?? '')
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
    if (own === '') continue;
    el.setAttribute('data-hookbench-font-report', String(n++));
    out.push({ selector: path(el), text: Array.from(own).slice(0, 80).join('') });
  }
  // CSS.getPlatformFontsForNode reports the fonts of the last layout, and nothing here has made
  // one since the injected styles: without a frame in between (a busy machine, no font wait),
  // it would report the page's first layout (the default serif). Reading a box lays it out now.
  void document.documentElement.getBoundingClientRect();
  return out;
}

function webFontsInPage(): { family: string; status: string }[] {
  return Array.from(document.fonts as Iterable<DomNode>).map((face) => ({ family: face.family.replace(/^(['"])(.*)\1$/, '$2'), status: face.status }));
}

/**
 * What the report needs of a page: to run a function in it, and DevTools commands on it. A
 * Puppeteer page (the REST emulator) or a binding session's own CDP session (browserSessions.ts).
 */
export interface FontReportTarget {
  evaluate<T>(fn: () => T): Promise<T>;
  send<T>(method: string, params?: Record<string, unknown>): Promise<T>;
}

async function nodeFonts(target: FontReportTarget, nodeId: number, loaded: Set<string>): Promise<Omit<ElementFonts, 'selector' | 'text'>> {
  const [{ fonts }, { computedStyle }] = await Promise.all([
    target.send<{ fonts: PlatformFont[] }>('CSS.getPlatformFontsForNode', { nodeId }),
    target.send<{ computedStyle: { name: string; value: string }[] }>('CSS.getComputedStyleForNode', { nodeId }),
  ]);
  const requested = parseFontFamily(computedStyle.find((p) => p.name === 'font-family')?.value ?? '');
  const drawn = byFamily(fonts)
    .map((font) => ({
      family: font.familyName,
      postScriptName: font.faces[0]!,
      faces: font.faces,
      custom: font.isCustomFont,
      glyphs: font.glyphCount,
      requestedAs: standsFor(font, requested, loaded),
    }))
    .map((font) => (font.requestedAs && isStandIn(font.requestedAs, font.family) ? { ...font, standIn: true } : font));
  const first = requested[0]?.toLowerCase();
  return { requested, fonts: drawn, fallback: drawn.some((font) => font.requestedAs?.toLowerCase() !== first) };
}

/** Reports the fonts of a page that is ready (navigated, injected, fonts awaited), on any target. */
export async function reportFonts(target: FontReportTarget): Promise<FontReport> {
  const described = await target.evaluate(markTextElements);
  const webFonts = await target.evaluate(webFontsInPage);
  const loaded = new Set(webFonts.filter((f) => f.status === 'loaded').map((f) => f.family.toLowerCase()));
  await target.send('DOM.enable');
  await target.send('CSS.enable');
  const { root } = await target.send<{ root: { nodeId: number } }>('DOM.getDocument', { depth: 0 });
  const { nodeIds } = await target.send<{ nodeIds: number[] }>('DOM.querySelectorAll', { nodeId: root.nodeId, selector: '[data-hookbench-font-report]' });
  const elements: ElementFonts[] = [];
  for (const [i, nodeId] of nodeIds.entries()) {
    const about = described[i];
    if (!about) continue;
    elements.push({ ...about, ...(await nodeFonts(target, nodeId, loaded)) });
  }
  return { elements, webFonts };
}

/** Reports the fonts of a Puppeteer page (the REST emulator's), on a CDP session of its own. */
export async function fontReport(page: Page): Promise<FontReport> {
  const session = await page.createCDPSession();
  try {
    return await reportFonts({ evaluate: (fn) => page.evaluate(fn), send: (method, params) => session.send(method as never, params as never) as never });
  } finally {
    await session.detach().catch(() => undefined);
  }
}

/** One line for the log: each drawn font with its glyphs, and the elements that fell back. */
export function fontReportLine(report: FontReport): string {
  const totals = new Map<string, number>();
  for (const font of report.elements.flatMap((element) => element.fonts)) {
    const name = `${font.family}${font.custom ? ' (web font)' : ''}`;
    totals.set(name, (totals.get(name) ?? 0) + font.glyphs);
  }
  const drawn = [...totals].map(([name, glyphs]) => `${name} ×${glyphs}`).join(', ') || 'no text';
  const fallbacks = report.elements.filter((element) => element.fallback);
  const fell = fallbacks.map(
    (element) =>
      `${element.selector} "${element.text.slice(0, 30)}" asked ${element.requested[0] ?? '?'}, drawn ${element.fonts.map((f) => f.family).join(' + ')}`,
  );
  return `fonts drawn: ${drawn}${fell.length ? `; FALLBACK in ${fell.length}: ${fell.join('; ')}` : '; no fallback'}`;
}
