/**
 * The request body a preview sends, from what the user chose: the page (URL or HTML), the
 * viewport, and a font — an installed family applied to the body, or a custom font injected the
 * way Cloudflare documents (an @font-face rule plus the body rule, in `addStyleTag`). The CLI and
 * the webview both build their bodies here, so copy-as-cURL shows exactly what was rendered.
 */
import { FontFaceError, fontFaceCss, type FontFaceOptions } from './fontFace';
import type { PreviewForm } from './previewProtocol';

export type PreviewFont =
  { readonly kind: 'installed'; readonly family: string; readonly fallback?: FontFaceOptions['fallback'] } | ({ readonly kind: 'custom' } & FontFaceOptions);

export interface PreviewSpec {
  readonly url?: string;
  readonly html?: string;
  readonly viewport?: { readonly width: number; readonly height: number; readonly deviceScaleFactor?: number };
  readonly font?: PreviewFont;
}

/** The body rule for an installed family (quoted, so names with spaces work). */
export function installedFontCss(family: string, fallback: FontFaceOptions['fallback'] = 'sans-serif'): string {
  const name = family.trim();
  if (name === '' || /[;{}<>'"\\]/.test(name)) throw new FontFaceError('a font family name is non-empty and has no ; { } < > quotes or backslashes');
  return GENERIC.has(name) ? `body { font-family: ${name}; }` : `body { font-family: '${name}', ${fallback}; }`;
}

const GENERIC = new Set(['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy']);

export function previewBody(spec: PreviewSpec): Record<string, unknown> {
  const body: Record<string, unknown> = spec.url !== undefined && spec.url !== '' ? { url: spec.url } : { html: spec.html ?? '' };
  if (spec.viewport) body['viewport'] = spec.viewport;
  if (spec.font?.kind === 'installed') body['addStyleTag'] = [{ content: installedFontCss(spec.font.family, spec.font.fallback) }];
  if (spec.font?.kind === 'custom') body['addStyleTag'] = [{ content: fontFaceCss(spec.font) }];
  return body;
}

/**
 * The spec of the preview form. A custom font from a file needs its bytes, which only the
 * extension reads (`fontBytes`); the webview never holds them.
 */
export function formSpec(form: PreviewForm, fontBytes?: Uint8Array): PreviewSpec {
  const page = form.source === 'url' ? { url: form.url.trim() } : { html: form.html };
  const viewport = { width: form.width, height: form.height, ...(form.scale !== 1 ? { deviceScaleFactor: form.scale } : {}) };
  if (form.font === '') return { ...page, viewport };
  if (form.font !== 'custom') return { ...page, viewport, font: { kind: 'installed', family: form.font, fallback: form.fallback } };
  const source = form.customSource;
  if (!source) throw new FontFaceError('choose a font URL or file for the custom font');
  const family = form.customFamily.trim() || (source.kind === 'file' ? source.name.replace(/\.[^.]+$/, '') : 'Custom Font');
  const common = { family, weight: form.weight, style: form.style, fallback: form.fallback };
  if (source.kind === 'url') return { ...page, viewport, font: { kind: 'custom', ...common, source: { url: source.url } } };
  if (!fontBytes) throw new FontFaceError(`cannot read the font file ${source.path}`);
  return { ...page, viewport, font: { kind: 'custom', ...common, source: { bytes: fontBytes, fileName: source.name } } };
}
