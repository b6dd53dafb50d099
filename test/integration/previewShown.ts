// What the render preview's webview shows, read in the real workbench (the launcher looks inside
// its page, as the developer tools would): the capture and its pages, the font report, the
// warnings above it, the failure in its place, the zoom, and the form's marked fields.
import type { PreviewOutcome } from '../../src/core/browserRendering/previewProtocol';
import { readWebview, userDoes } from './reporter';

/** The preview's page title. */
const TITLE = 'Render Preview';

export interface PreviewShown {
  /** The image's type, `application/pdf` for pages drawn by pdf.js, null when no capture is shown. */
  readonly contentType: string | null;
  readonly pages: number;
  readonly reportRows: number;
  /** The font report's rows: the font, what it stood for, and the texts of the elements it drew. */
  readonly report: { readonly font: string; readonly standsFor: string; readonly texts: string[] }[];
  /** The warnings above the capture, as shown. */
  readonly warnings: string[];
  /** The failure shown in the capture's place. */
  readonly error?: string;
  /** Which zoom button is pressed. */
  readonly zoom: 'fit' | 'actual';
  /** The width the image is drawn at, in CSS pixels. */
  readonly drawnWidth?: number;
  /** The decoded image's own pixels. */
  readonly imageSize?: { readonly width: number; readonly height: number };
  /** The labels of the form's fields marked as stopping a render. */
  readonly marked: string[];
  readonly renderDisabled: boolean;
  /** The line under the HTML field naming the file it came from ('' when none). */
  readonly htmlFile: string;
  readonly status: string;
}

const READ = `(() => {
  const capture = document.querySelector('#capture');
  const image = capture?.querySelector('img') ?? null;
  const canvases = capture ? capture.querySelectorAll('canvas.pdf-page').length : 0;
  const warnings = document.querySelector('#warnings');
  const rows = [...document.querySelectorAll('#report table tbody tr')];
  return {
    contentType: image ? image.src.slice('data:'.length, image.src.indexOf(';')) : canvases > 0 ? 'application/pdf' : null,
    pages: image ? 1 : canvases,
    reportRows: rows.length,
    report: rows.map((row) => ({ font: row.cells[1]?.textContent ?? '', standsFor: row.cells[2]?.textContent ?? '', texts: [...(row.cells[3]?.querySelectorAll('code') ?? [])].map((code) => code.title) })),
    warnings: warnings && !warnings.hidden ? [...warnings.children].map((p) => p.textContent) : [],
    error: document.querySelector('#render-failure')?.textContent ?? undefined,
    zoom: document.querySelector('#zoom-actual')?.getAttribute('aria-pressed') === 'true' ? 'actual' : 'fit',
    drawnWidth: image ? Math.round(image.getBoundingClientRect().width) : undefined,
    imageSize: image && image.naturalWidth > 0 ? { width: image.naturalWidth, height: image.naturalHeight } : undefined,
    marked: [...document.querySelectorAll('[invalid]')].map((control) => document.querySelector('vscode-label[for="' + control.id + '"]')?.textContent ?? control.id),
    renderDisabled: document.querySelector('#render')?.disabled === true,
    htmlFile: document.querySelector('#html-file')?.textContent ?? '',
    status: document.querySelector('#status')?.textContent ?? '',
  };
})()`;

/** An image the page shows in full: not stale (a newer render under way), decoded and zoomed. */
const IMAGE_SHOWN = `(() => {
  const capture = document.querySelector('#capture');
  const image = capture?.querySelector('img');
  return Boolean(capture && !capture.dataset.stale && image && image.complete && image.naturalWidth > 0 && image.dataset.zoom !== undefined);
})()`;

/** A PDF the page shows in full: its pages drawn by pdf.js, where an image was before. */
const PDF_SHOWN = `(() => {
  const capture = document.querySelector('#capture');
  return Boolean(capture && !capture.dataset.stale && !capture.querySelector('img') && capture.querySelectorAll('canvas.pdf-page').length > 0 && /^PDF, /.test(document.querySelector('#status')?.textContent ?? ''));
})()`;

/** What the preview shows once `until` (an expression in its page) holds. */
export function previewShows(until: string): Promise<PreviewShown> {
  return readWebview<PreviewShown>(TITLE, READ, until);
}

/** What the preview shows once it shows what a render answered: its capture, or its failure. */
export function previewShowsOutcome(outcome: PreviewOutcome | undefined): Promise<PreviewShown> {
  if (!outcome) throw new Error('the render was overtaken by a newer one');
  if (outcome.type !== 'rendered') return previewShows(`document.querySelector('#render-failure')?.textContent === ${JSON.stringify(outcome.message)}`);
  // The image's bytes are in its data: URL; pdf.js's pages are canvases.
  if (outcome.contentType.includes('pdf')) return previewShows(PDF_SHOWN);
  return previewShows(`${IMAGE_SHOWN} && document.querySelector('#capture img').src.endsWith(${JSON.stringify(outcome.data.slice(-64))})`);
}

/**
 * Does `act` (a click in the page, a save) and answers what the preview shows once a new image is
 * shown in full: the image on screen before is marked in its page first, so that it is not taken
 * for the new one.
 */
export async function previewShowsNext(act: () => unknown): Promise<PreviewShown> {
  await readWebview(TITLE, `(document.querySelector('#capture img')?.setAttribute('data-shown-before', ''), true)`);
  await act();
  return previewShows(`${IMAGE_SHOWN} && !document.querySelector('#capture img[data-shown-before]')`);
}

/** Clicks `selector` in the preview's page, as the user does. */
export function clickInPreview(selector: string): Promise<unknown> {
  return userDoes({ clickInWebview: selector });
}
