/**
 * The messages between the render-preview webview and the extension. The webview never holds a
 * token or a font file's bytes: it sends what the user chose, the extension checks and renders it
 * and answers. Everything the webview sends is untrusted: the extension checks it (`previewForm.ts`).
 */
import type { CatalogEntry } from './fontCatalog';

export type CustomFontSource = { readonly kind: 'url'; readonly url: string } | { readonly kind: 'file'; readonly path: string; readonly name: string };

/** Everything the form holds; also the webview's saved state. */
export interface PreviewForm {
  readonly source: 'url' | 'html';
  readonly url: string;
  readonly html: string;
  /**
   * The URI of the HTML file the `html` came from (Render Active HTML File): saving that file
   * renders it again, while the form still shows it.
   */
  readonly htmlFile?: string;
  readonly endpoint: 'screenshot' | 'pdf';
  /** As typed: the extension refuses what is not a whole number from 1 to 16384. */
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

/** A form field (or the custom font's source) and why it cannot be rendered as it is. */
export interface FieldProblem {
  readonly field:
    'source' | 'url' | 'html' | 'endpoint' | 'width' | 'height' | 'scale' | 'font' | 'customFamily' | 'customSource' | 'weight' | 'style' | 'fallback';
  readonly message: string;
}

/** How a PNG capture is drawn: scaled to the panel's width, or one image pixel per screen pixel. */
export type Zoom = 'fit' | 'actual';

export type ToExtension =
  | { readonly type: 'ready' }
  /** The form changed: which fields stop a render? Answered by `checked` with the same id. */
  | { readonly type: 'check'; readonly requestId: number; readonly form: PreviewForm }
  | { readonly type: 'render'; readonly form: PreviewForm }
  | { readonly type: 'pickFontFile' }
  | { readonly type: 'copyCurl'; readonly form: PreviewForm; readonly revealToken: boolean }
  | { readonly type: 'save' }
  /**
   * The capture a Render click asked for is shown (its image decoded): how long that took in the
   * webview's clock, which the extension joins to its own part (`PreviewTiming`, in the log).
   */
  | { readonly type: 'displayed'; readonly timing: { readonly clickToShownMs: number; readonly arrivedToShownMs: number } };

/**
 * How long a render from the preview's Render button took to show, in the webview's clock: from
 * the click to the image decoded in the page, and from the capture's message arriving to that.
 */
export interface PreviewTiming {
  readonly clickToShownMs: number;
  /** The extension's part: the render message received → the capture posted back. */
  readonly extensionMs: number;
  /** Of which the emulator's REST calls (the capture and the font report, at once) and the answer's base64. */
  readonly restMs: number;
  /** The webview's part: the capture's message arrived → the image decoded. */
  readonly arrivedToShownMs: number;
  /** The rest: the two messages between the webview and the extension host. */
  readonly messagingMs: number;
  /** The capture's size in bytes. */
  readonly bytes: number;
}

/** The log line the preview writes for each Render click's capture shown ("[render] " before it). */
export function previewTimingText(t: PreviewTiming): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return `Render click → shown in ${ms(t.clickToShownMs)}: the extension ${ms(t.extensionMs)} (REST ${ms(t.restMs)}), the messages ${ms(t.messagingMs)}, the webview ${ms(t.arrivedToShownMs)} (${t.bytes} B)`;
}

/** The timing a line of the log holds, if it is a `previewTimingText` line. */
export function parsePreviewTiming(line: string): PreviewTiming | undefined {
  const match =
    /Render click → shown in ([\d.-]+) ms: the extension ([\d.-]+) ms \(REST ([\d.-]+) ms\), the messages ([\d.-]+) ms, the webview ([\d.-]+) ms \((\d+) B\)/.exec(
      line,
    );
  if (!match) return undefined;
  const [clickToShownMs, extensionMs, restMs, messagingMs, arrivedToShownMs, bytes] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { clickToShownMs, extensionMs, restMs, messagingMs, arrivedToShownMs, bytes };
}

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

/** One platform font of the report, once, with every element it drew (`fontUsage.ts`). */
export interface FontUsage {
  readonly family: string;
  readonly custom: boolean;
  /** The requested families it stood for, e.g. ['Injected'] or ['sans-serif']; empty when none. */
  readonly standsFor: string[];
  /** It replaces a Microsoft font with the same metrics (Liberation Sans for Arial). */
  readonly standIn: boolean;
  /** The elements it drew glyphs of, in document order. */
  readonly elements: { readonly selector: string; readonly text: string }[];
  /** How many of those elements asked first for another family: there it is a fallback. */
  readonly fallbackIn: number;
}

export interface PreviewReport {
  readonly elements: RenderedElement[];
  /** Each platform font once. */
  readonly fonts: FontUsage[];
  readonly fontsReady: string;
}

export type ToWebview =
  | { readonly type: 'init'; readonly form?: PreviewForm; readonly defaults: PreviewForm; readonly catalog: CatalogEntry[]; readonly target: string }
  /** A render started by a command: the form shows what it rendered. */
  | { readonly type: 'setForm'; readonly form: PreviewForm }
  /** The fields that stop a render (empty: none); `requestId` of the `check` it answers, if any. */
  | { readonly type: 'checked'; readonly requestId?: number; readonly problems: FieldProblem[] }
  | { readonly type: 'rendering' }
  | {
      readonly type: 'rendered';
      readonly contentType: string;
      /** The image or PDF, base64. */
      readonly data: string;
      readonly browserMsUsed?: number;
      /** The font report, when the target can give one (the local emulator). */
      readonly report?: PreviewReport;
      readonly reportError?: string;
      /** Shown above the capture: fonts that did not load or drew nothing, and why. */
      readonly warnings: string[];
    }
  /** The render was refused or failed: the previous capture and report must go. */
  | { readonly type: 'renderFailed'; readonly message: string }
  | { readonly type: 'fontFile'; readonly source: CustomFontSource }
  | { readonly type: 'error'; readonly message: string };

/**
 * What a render the preview ran answered, as Open Render Preview (given a form) and Render Active
 * HTML File answer it to their caller: the capture and its font report as the webview was given
 * them; the fields that stop a render of a form refused before the emulator; or why it failed.
 */
export type PreviewOutcome =
  | Extract<ToWebview, { type: 'rendered' }>
  | { readonly type: 'refused'; readonly message: string; readonly problems: FieldProblem[] }
  | Extract<ToWebview, { type: 'renderFailed' }>;
