// The right-hand side of the preview: the image or the PDF's pages, and the font report.
import * as pdfjs from 'pdfjs-dist';
import type { RenderedElement } from '../core/render/previewProtocol';

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

export function showImage(container: HTMLElement, contentType: string, data: string): void {
  const image = document.createElement('img');
  image.alt = 'Rendered page';
  image.className = 'capture';
  image.src = `data:${contentType};base64,${data}`;
  container.replaceChildren(image);
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

/** One row per element with text: what it asked for, what drew it, fallbacks flagged. */
export function showReport(container: HTMLElement, elements: RenderedElement[], fontsReady: string): void {
  const table = document.createElement('table');
  table.className = 'report';
  const head = table.createTHead().insertRow();
  for (const title of ['', 'Element', 'Asked for', 'Drawn by']) head.append(Object.assign(document.createElement('th'), { textContent: title }));
  const body = table.createTBody();
  for (const element of elements) {
    const row = body.insertRow();
    row.className = element.fallback ? 'fallback' : 'ok';
    row.insertCell().textContent = element.fallback ? '⚠' : '✓';
    row.cells[0]!.title = element.fallback ? 'Some glyphs were drawn by a font other than the first one asked for' : 'Drawn by the font asked for';
    const what = row.insertCell();
    what.append(Object.assign(document.createElement('code'), { textContent: element.selector }), document.createElement('br'), Object.assign(document.createElement('span'), { className: 'sample', textContent: element.text }));
    row.insertCell().textContent = element.requested.join(', ');
    row.insertCell().textContent = element.fonts.map((f) => `${f.family}${f.custom ? ' (web font)' : ''} ×${f.glyphs}${f.standIn ? ` — same metrics as ${f.requestedAs}` : f.requestedAs === null ? ' — not asked for' : ''}`).join('; ');
  }
  const summary = document.createElement('p');
  summary.className = 'summary';
  const fallbacks = elements.filter((e) => e.fallback).length;
  summary.textContent = `${elements.length} elements with text, ${fallbacks} with fallback fonts · document.fonts: ${fontsReady}`;
  container.replaceChildren(summary, table);
}
