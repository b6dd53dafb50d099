/**
 * Each endpoint's action on a prepared page, and its answer: raw bytes for `screenshot` and `pdf`,
 * a JSON result (for the v4 envelope) for the others.
 */
import type { Page, PDFOptions, ScreenshotOptions } from 'puppeteer-core';
import { RenderError } from '../../core/browserRendering/errors';
import { checkBitmapSize, type RenderRequest } from '../../core/browserRendering/request';
import { fontReport } from './fontReport';
import { linksInPage, markdownInPage, scrapeInPage } from './pageScripts';
import type { PreparedPage } from './preparePage';

export type ActionResult =
  | { readonly kind: 'binary'; readonly contentType: string; readonly bytes: Uint8Array }
  | { readonly kind: 'json'; readonly result: unknown; readonly meta?: Record<string, unknown> };

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * A full-page capture is as large as the loaded page, known only now: 400 before Chromium draws a
 * bitmap past MAX_BITMAP_PIXELS. The size is Chromium's own (`Page.getLayoutMetrics`, the one
 * `captureBeyondViewport` draws), which the page's scripts cannot misreport; the capture is then
 * clipped to exactly that size, so a page that grows after the check cannot make it larger. For a
 * page that does not grow, the bytes are those of `fullPage: true`.
 */
async function fullPageOptions(page: Page, request: RenderRequest, options: ScreenshotOptions): Promise<ScreenshotOptions> {
  if (options.fullPage !== true || options.clip !== undefined) return options;
  const session = await page.createCDPSession();
  try {
    const { cssContentSize } = await session.send('Page.getLayoutMetrics');
    const { width, height, deviceScaleFactor } = request.viewport;
    const clip = { x: 0, y: 0, width: Math.max(width, Math.ceil(cssContentSize.width)), height: Math.max(height, Math.ceil(cssContentSize.height)) };
    checkBitmapSize('screenshotOptions.fullPage', clip.width, clip.height, deviceScaleFactor);
    return { ...options, fullPage: false, captureBeyondViewport: true, clip };
  } finally {
    await session.detach().catch(() => undefined);
  }
}

async function screenshot(page: Page, request: RenderRequest): Promise<Uint8Array | string> {
  const options = request.screenshotOptions as ScreenshotOptions;
  if (request.selector !== undefined) {
    const element = await page.$(request.selector);
    if (!element) throw new RenderError(400, 400, `selector: Element not found on page! (${request.selector})`);
    // Puppeteer captures the element's whole box (or the clip, checked with the request).
    const box = options.clip ? null : await element.boundingBox();
    if (box) checkBitmapSize('selector', box.width, box.height, request.viewport.deviceScaleFactor);
    return element.screenshot(options);
  }
  return page.screenshot(await fullPageOptions(page, request, options));
}

function pdf(page: Page, request: RenderRequest, waitForFonts: boolean): Promise<Uint8Array> {
  const options = { ...request.pdfOptions, waitForFonts } as PDFOptions;
  options.timeout ??= 30_000;
  if (typeof options.format === 'string') options.format = options.format.toLowerCase() as PDFOptions['format'];
  return page.pdf(options);
}

async function accessibilityTree(page: Page, request: RenderRequest): Promise<unknown> {
  const root = request.root !== undefined ? await page.$(request.root) : undefined;
  if (request.root !== undefined && !root) throw new RenderError(400, 400, `root: Element not found on page! (${request.root})`);
  const tree = await page.accessibility.snapshot({ interestingOnly: request.interestingOnly, ...(root ? { root } : {}) });
  return withoutCdpIds(tree);
}

/** Puppeteer's tree carries DevTools' node and loader ids, meaningless outside this browser. */
function withoutCdpIds(node: unknown): unknown {
  if (!node || typeof node !== 'object') return node;
  const { backendNodeId: _node, loaderId: _loader, children, ...rest } = node as Record<string, unknown>;
  return Array.isArray(children) ? { ...rest, children: children.map(withoutCdpIds) } : rest;
}

async function snapshot(page: Page, request: RenderRequest): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  for (const format of request.formats) {
    if (format === 'content') result['content'] = await page.content();
    if (format === 'screenshot') {
      const options = await fullPageOptions(page, request, request.screenshotOptions as ScreenshotOptions);
      result['screenshot'] = Buffer.from(await page.screenshot({ ...options, encoding: 'binary' })).toString('base64');
    }
    if (format === 'markdown') result['markdown'] = await page.evaluate(markdownInPage);
    if (format === 'accessibilityTree') result['accessibilityTree'] = await accessibilityTree(page, request);
  }
  return result;
}

/** A capture the font report can carry: the preview's one request, one page for both. */
export type ReportCapture = 'screenshot' | 'pdf';

/**
 * Runs the request's endpoint (or the font report) on the prepared page. With `capture`, the font
 * report first takes that capture of the same page, as its endpoint would, and carries it base64.
 */
export async function runAction(
  page: Page,
  request: RenderRequest,
  prepared: PreparedPage,
  action: RenderRequest['endpoint'] | 'font-report',
  waitForFonts: boolean,
  capture?: ReportCapture,
): Promise<ActionResult> {
  const meta = { ...(prepared.status !== undefined ? { status: prepared.status } : {}), title: prepared.title };
  switch (action) {
    case 'screenshot': {
      const shot = await screenshot(page, request);
      if (typeof shot === 'string') return { kind: 'binary', contentType: 'text/plain; charset=utf-8', bytes: Buffer.from(shot) };
      return { kind: 'binary', contentType: IMAGE_TYPES[String(request.screenshotOptions['type'])] ?? 'image/png', bytes: shot };
    }
    case 'pdf':
      return { kind: 'binary', contentType: 'application/pdf', bytes: await pdf(page, request, waitForFonts) };
    case 'content':
      return { kind: 'json', result: await page.content(), meta };
    case 'snapshot':
      return { kind: 'json', result: await snapshot(page, request), meta };
    case 'scrape':
      return {
        kind: 'json',
        result: await page.evaluate(
          scrapeInPage,
          request.elements.map((e) => e.selector),
        ),
        meta,
      };
    case 'links':
      return { kind: 'json', result: await page.evaluate(linksInPage, request.visibleLinksOnly, request.excludeExternalLinks), meta };
    case 'markdown':
      return { kind: 'json', result: await page.evaluate(markdownInPage), meta };
    case 'accessibilityTree':
      return { kind: 'json', result: { accessibilityTree: await accessibilityTree(page, request) }, meta };
    case 'font-report': {
      // The capture before the report: marking the text elements for it must not be in the image.
      const taken = capture ? await runAction(page, request, prepared, capture, waitForFonts) : undefined;
      const report = { ...(await fontReport(page)), fontsReady: prepared.fonts };
      if (taken?.kind !== 'binary') return { kind: 'json', result: report, meta };
      return {
        kind: 'json',
        result: {
          ...report,
          capture: { contentType: taken.contentType, data: Buffer.from(taken.bytes.buffer, taken.bytes.byteOffset, taken.bytes.byteLength).toString('base64') },
        },
        meta,
      };
    }
    case 'json':
      throw new RenderError(
        501,
        501,
        'The json endpoint asks an AI model (Workers AI) to extract data; it is not available locally. Use /scrape or /content here, or render through Cloudflare.',
      );
  }
}
