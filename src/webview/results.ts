// The right-hand side of the preview: the image or the PDF's pages, and the font report.
import * as pdfjs from 'pdfjs-dist';
import type { PreviewReport, Zoom } from '../core/browserRendering/previewProtocol';

let workerReady: Promise<void> | undefined;

/**
 * pdf.js needs its worker; a webview cannot start one from the extension's resource origin, so the
 * script is fetched and started from a blob URL (the CSP allows exactly that).
 */
function ensureWorker(workerUrl: string): Promise<void> {
  workerReady ??= fetch(workerUrl)
    .then((response) => response.blob())
    .then((blob) => {
      const worker = new Worker(URL.createObjectURL(new Blob([blob], { type: 'text/javascript' })), { type: 'module' });
      pdfjs.GlobalWorkerOptions.workerPort = worker;
    });
  return workerReady;
}

function bytesOf(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Shows the image; `zoom` says whether it fits the panel's width or shows its actual pixels. */
export function showImage(container: HTMLElement, contentType: string, data: string, zoom: Zoom): HTMLImageElement {
  const image = document.createElement('img');
  image.alt = 'Rendered page';
  image.className = 'capture';
  image.src = `data:${contentType};base64,${data}`;
  image.addEventListener('load', () => applyZoom(image, zoom), { once: true });
  container.replaceChildren(image);
  return image;
}

/**
 * Fit: at most the panel's width. 1:1: one image pixel per screen pixel, so a capture at scale 2
 * on a display at 2 shows at its CSS size. (CSSOM styles are not inline styles: the CSP allows them.)
 */
export function applyZoom(image: HTMLImageElement, zoom: Zoom): void {
  image.dataset['zoom'] = zoom;
  image.style.width = zoom === 'actual' && image.naturalWidth > 0 ? `${image.naturalWidth / (window.devicePixelRatio || 1)}px` : '';
}

/** The capture and its report are gone: the failure stands where they were. */
export function showFailure(capture: HTMLElement, report: HTMLElement, warnings: HTMLElement, message: string): void {
  const box = Object.assign(document.createElement('div'), { className: 'failure', id: 'render-failure', textContent: message });
  box.setAttribute('role', 'alert');
  capture.replaceChildren(box);
  report.replaceChildren(Object.assign(document.createElement('p'), { className: 'summary', textContent: 'No font report: the render failed.' }));
  warnings.replaceChildren();
  warnings.hidden = true;
}

/** The font warnings, above the capture. */
export function showWarnings(container: HTMLElement, warnings: string[]): void {
  container.replaceChildren(...warnings.map((text) => Object.assign(document.createElement('p'), { className: 'warning', textContent: `⚠ ${text}` })));
  container.hidden = warnings.length === 0;
}

/** Draws each page of the PDF into a canvas, at the panel's width. */
export async function showPdf(container: HTMLElement, data: string, workerUrl: string): Promise<number> {
  await ensureWorker(workerUrl);
  const pdf = await pdfjs.getDocument({ data: bytesOf(data) }).promise;
  container.replaceChildren();
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const base = page.getViewport({ scale: 1 });
    const scale = Math.max(0.25, Math.min(2, (container.clientWidth || 800) / base.width)) * (window.devicePixelRatio || 1);
    const viewport = page.getViewport({ scale });
    const canvas = document.createElement('canvas');
    canvas.className = 'pdf-page';
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    canvas.setAttribute('aria-label', `Page ${n} of ${pdf.numPages}`);
    container.append(canvas);
    await page.render({ canvas, viewport }).promise;
  }
  return pdf.numPages;
}

const MAX_LISTED = 5;

/** One row per platform font, once: what it stood for and the elements it drew, fallbacks flagged. */
export function showReport(container: HTMLElement, report: PreviewReport): void {
  const table = document.createElement('table');
  table.className = 'report';
  const head = table.createTHead().insertRow();
  for (const title of ['', 'Font', 'Stood for', 'Drew']) head.append(Object.assign(document.createElement('th'), { textContent: title }));
  const body = table.createTBody();
  for (const font of report.fonts) {
    const row = body.insertRow();
    row.className = font.fallbackIn > 0 ? 'fallback' : 'ok';
    row.insertCell().textContent = font.fallbackIn > 0 ? '⚠' : '✓';
    row.cells[0]!.title =
      font.fallbackIn > 0
        ? `A fallback in ${font.fallbackIn} of its ${font.elements.length} elements: they asked first for another family`
        : 'Drew what it was asked for';
    row.insertCell().textContent = `${font.family}${font.custom ? ' (web font)' : ''}`;
    row.insertCell().textContent = font.standsFor.length === 0 ? 'not asked for' : `${font.standsFor.join(', ')}${font.standIn ? ' — same metrics' : ''}`;
    const drew = row.insertCell();
    drew.append(`${font.elements.length} element${font.elements.length === 1 ? '' : 's'}: `);
    font.elements.slice(0, MAX_LISTED).forEach((element, i) => {
      if (i > 0) drew.append(', ');
      drew.append(Object.assign(document.createElement('code'), { textContent: element.selector, title: element.text }));
    });
    if (font.elements.length > MAX_LISTED) drew.append(` and ${font.elements.length - MAX_LISTED} more`);
  }
  const summary = document.createElement('p');
  summary.className = 'summary';
  const fallbacks = report.elements.filter((e) => e.fallback).length;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  summary.textContent = `${count(report.fonts.length, 'font')} drew ${count(report.elements.length, 'element')} with text, ${fallbacks} of them with fallback fonts · document.fonts: ${report.fontsReady}`;
  container.replaceChildren(summary, table);
}
