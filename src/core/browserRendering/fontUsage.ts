/**
 * The font report by font rather than by element: each platform font once, with the elements it
 * drew and what it stood for. The emulator reports per element (CDP `CSS.getPlatformFontsForNode`
 * counts a node's descendants' glyphs too), so glyph counts are not summed across elements.
 */
import type { FontUsage, RenderedElement } from './previewProtocol';

/** Each drawn family once (web fonts apart from installed ones), in the order they first draw. */
export function fontUsage(elements: readonly RenderedElement[]): FontUsage[] {
  const byFont = new Map<
    string,
    { family: string; custom: boolean; standsFor: Set<string>; standIn: boolean; elements: { selector: string; text: string }[]; fallbackIn: number }
  >();
  for (const element of elements) {
    const first = element.requested[0]?.toLowerCase();
    const seen = new Set<string>();
    for (const font of element.fonts) {
      const key = `${font.custom ? 'web' : 'local'}:${font.family.toLowerCase()}`;
      let usage = byFont.get(key);
      if (!usage) {
        usage = { family: font.family, custom: font.custom, standsFor: new Set(), standIn: false, elements: [], fallbackIn: 0 };
        byFont.set(key, usage);
      }
      if (font.requestedAs !== null) usage.standsFor.add(font.requestedAs);
      if (font.standIn) usage.standIn = true;
      // One element may list a family once per face (regular, bold): it counts once.
      if (seen.has(key)) continue;
      seen.add(key);
      usage.elements.push({ selector: element.selector, text: element.text });
      if (font.requestedAs?.toLowerCase() !== first) usage.fallbackIn++;
    }
  }
  return [...byFont.values()].map((u) => ({ ...u, standsFor: [...u.standsFor] }));
}
