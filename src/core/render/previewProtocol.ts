/**
 * The messages between the render-preview webview and the extension. The webview never holds a
 * token or a font file's bytes: it sends what the user chose, the extension renders and answers.
 */
import type { CatalogEntry } from './fontCatalog';

export type CustomFontSource = { readonly kind: 'url'; readonly url: string } | { readonly kind: 'file'; readonly path: string; readonly name: string };

/** Everything the form holds; also the webview's saved state. */
export interface PreviewForm {
  readonly source: 'url' | 'html';
  readonly url: string;
  readonly html: string;
  readonly endpoint: 'screenshot' | 'pdf';
  readonly width: number;
  readonly height: number;
  readonly scale: number;
  /** '' for the page's own fonts, an installed family, or 'custom'. */
  readonly font: string;
  readonly customFamily: string;
  readonly customSource?: CustomFontSource;
  readonly weight: string;
  readonly style: 'normal' | 'italic';
  readonly fallback: 'serif' | 'sans-serif' | 'monospace' | 'cursive' | 'fantasy';
}

export type ToExtension =
  | { readonly type: 'ready' }
  | { readonly type: 'render'; readonly form: PreviewForm }
  | { readonly type: 'pickFontFile' }
  | { readonly type: 'copyCurl'; readonly form: PreviewForm; readonly revealToken: boolean }
  | { readonly type: 'save' }
  /** The webview drew a capture: what, and how many report rows (tests wait for it). */
  | { readonly type: 'displayed'; readonly contentType: string; readonly pages: number; readonly reportRows: number };

export interface RenderedFont {
  readonly family: string;
  readonly custom: boolean;
  readonly glyphs: number;
  readonly requestedAs: string | null;
  readonly standIn?: boolean;
}

export interface RenderedElement {
  readonly selector: string;
  readonly text: string;
  readonly requested: string[];
  readonly fonts: RenderedFont[];
  readonly fallback: boolean;
}

export type ToWebview =
  | { readonly type: 'init'; readonly form?: PreviewForm; readonly catalog: CatalogEntry[]; readonly target: string }
  /** A render started by a command: the form shows what it rendered. */
  | { readonly type: 'setForm'; readonly form: PreviewForm }
  | { readonly type: 'rendering' }
  | {
      readonly type: 'rendered';
      readonly contentType: string;
      /** The image or PDF, base64. */
      readonly data: string;
      readonly browserMsUsed?: number;
      /** The font report, when the target can give one (the local emulator). */
      readonly report?: { elements: RenderedElement[]; fontsReady: string };
      readonly reportError?: string;
    }
  | { readonly type: 'fontFile'; readonly source: CustomFontSource }
  | { readonly type: 'error'; readonly message: string };
