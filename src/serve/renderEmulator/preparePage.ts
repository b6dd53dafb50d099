/**
 * Gets a page ready for its action in Browser Rendering's order of operations
 * (docs/render.md, "Request fields, defaults and order"): emulation, cookies, viewport, user agent, credentials,
 * headers, JavaScript, request filtering; then navigation; then `addStyleTag` and `addScriptTag`
 * (after navigation, so custom fonts belong to the rendered document); then `waitForTimeout`,
 * `waitForSelector` and `scrollPage`; finally, Hookbench's choice, `document.fonts.ready`.
 */
import type { Page } from 'puppeteer-core';
import { RenderError } from '../../core/browserRendering/errors';
import { requestPattern, type RenderRequest } from '../../core/browserRendering/request';
import { alreadySet, interceptRequests, noteSettings } from './browserPool';
import type { PageGuard } from './pageGuard';
import { attempt, within } from './failures';
import { fontsReadyInPage, scrollThroughPage } from './pageScripts';

/** What navigation told us, for `meta` and the font wait's outcome. */
export interface PreparedPage {
  readonly status?: number;
  readonly title: string;
  /** ready: fonts loaded; timeout: gave up waiting; skipped: not asked to wait. */
  readonly fonts: 'ready' | 'timeout' | 'skipped';
}

export interface PrepareOptions {
  /** Wait for `document.fonts.ready` before the action (see docs/render.md). */
  readonly waitForFonts: boolean;
  /** How long to wait for fonts at most. */
  readonly fontTimeoutMs?: number;
  /** Refuses the addresses pages may not reach (pageGuard.ts). */
  readonly guard?: PageGuard;
}

/** Schemes a page may load: the web, and the page's own inline data. Never file:, chrome: and the like. */
const LOADABLE = new Set(['http:', 'https:', 'data:', 'blob:', 'about:']);

/**
 * The request filter: local schemes refused, then the addresses the guard refuses (logged), then
 * reject rules, then allow rules (reject first, as documented).
 */
export function requestFilter(request: RenderRequest, guard?: PageGuard): (url: string, type: string) => boolean {
  const rejectPatterns = request.rejectRequestPattern.map(requestPattern);
  const allowPatterns = request.allowRequestPattern.map(requestPattern);
  return (url, type) => {
    let scheme: string;
    try {
      scheme = new URL(url).protocol;
    } catch {
      return false;
    }
    if (!LOADABLE.has(scheme)) return false;
    const refusal = guard?.literal(url);
    if (refusal) {
      guard!.refused(url, refusal);
      return false;
    }
    if (request.rejectResourceTypes.includes(type) || rejectPatterns.some((p) => p.test(url))) return false;
    if (request.allowResourceTypes.length > 0 && !request.allowResourceTypes.includes(type)) return false;
    if (allowPatterns.length > 0 && !allowPatterns.some((p) => p.test(url))) return false;
    return true;
  };
}

async function setUp(page: Page, request: RenderRequest, guard: PageGuard | undefined): Promise<void> {
  if (request.emulateMediaType) await page.emulateMediaType(request.emulateMediaType);
  if (request.cookies.length > 0) {
    const cookies = request.cookies.map((cookie, i) => {
      if (cookie['url'] === undefined && cookie['domain'] === undefined) {
        if (!request.url) throw new RenderError(400, 400, `cookies[${i}]: give url or domain when rendering html`);
        return { ...cookie, url: request.url };
      }
      return cookie;
    });
    await page.setCookie(...(cookies as unknown as Parameters<Page['setCookie']>));
  }
  const already = alreadySet(page, request.viewport, request.userAgent);
  if (!already.viewport) await page.setViewport(request.viewport);
  if (!already.userAgent) await page.setUserAgent(request.userAgent);
  noteSettings(page, request.viewport, request.userAgent);
  if (request.authenticate) await page.authenticate(request.authenticate);
  if (Object.keys(request.setExtraHTTPHeaders).length > 0) await page.setExtraHTTPHeaders(request.setExtraHTTPHeaders);
  if (!request.setJavaScriptEnabled) await page.setJavaScriptEnabled(false);
  await interceptRequests(page, requestFilter(request, guard));
}

async function navigate(page: Page, request: RenderRequest): Promise<number | undefined> {
  const options = { timeout: request.gotoOptions.timeout, waitUntil: request.gotoOptions.waitUntil };
  let status: number | undefined;
  await attempt(request.bestAttempt, async () => {
    if (request.url !== undefined) {
      const response = await page.goto(request.url, { ...options, ...(request.gotoOptions.referer ? { referer: request.gotoOptions.referer } : {}) });
      status = response?.status();
    } else {
      await setContent(page, request.html ?? '', options);
    }
  });
  return status;
}

/** How long the network must stay quiet for `networkidle0`/`networkidle2` (Puppeteer's definition). */
const NETWORK_IDLE_MS = 500;

/**
 * `html` input. Puppeteer waits for networkidle after `setContent` with Chromium's own lifecycle
 * events, which its idleness detector fires once per page, timed from the blank page's creation:
 * `document.write` does not start it again. On a page opened a moment ago it fires seconds later;
 * on one opened ahead and idle since, never (the timeout, then 422; docs/performance.md, "Render").
 * So the idle part is measured here instead: the document and its subresources loaded (`load`),
 * then 500 ms with no more requests in flight than the option allows (0, or 2 for networkidle2),
 * as Puppeteer defines networkidle, counted from the load rather than from the page's creation.
 */
async function setContent(page: Page, html: string, options: { timeout: number; waitUntil: RenderRequest['gotoOptions']['waitUntil'] }): Promise<void> {
  const idle = options.waitUntil.filter((event) => event === 'networkidle0' || event === 'networkidle2');
  const lifecycle = options.waitUntil.filter((event) => event === 'load' || event === 'domcontentloaded');
  if (idle.length === 0) return page.setContent(html, { timeout: options.timeout, waitUntil: lifecycle });
  const started = performance.now();
  await page.setContent(html, { timeout: options.timeout, waitUntil: 'load' });
  const remaining = Math.max(1, options.timeout - (performance.now() - started));
  await page.waitForNetworkIdle({
    idleTime: NETWORK_IDLE_MS,
    concurrency: idle.includes('networkidle0') ? 0 : 2,
    timeout: options.timeout === 0 ? 0 : remaining,
  });
}

async function inject(page: Page, request: RenderRequest): Promise<void> {
  for (const tag of request.addStyleTag) await page.addStyleTag(tag);
  for (const tag of request.addScriptTag) await page.addScriptTag(tag);
}

async function wait(page: Page, request: RenderRequest): Promise<void> {
  if (request.waitForTimeout) await new Promise((resolve) => setTimeout(resolve, request.waitForTimeout));
  const selector = request.waitForSelector;
  if (selector) {
    await attempt(request.bestAttempt, () =>
      page.waitForSelector(selector.selector, { timeout: selector.timeout, visible: selector.visible, hidden: selector.hidden }),
    );
  }
  if (request.scrollPage) {
    await page.evaluate(scrollThroughPage);
  }
}

/** The fonts wait's outcome, and the page's title when the wait read it. */
async function fontsReady(page: Page, options: PrepareOptions): Promise<{ fonts: PreparedPage['fonts']; title?: string }> {
  if (!options.waitForFonts) return { fonts: 'skipped' };
  try {
    return { fonts: 'ready', title: await within(options.fontTimeoutMs ?? 10_000, 'document.fonts.ready', page.evaluate(fontsReadyInPage)) };
  } catch {
    return { fonts: 'timeout' };
  }
}

export async function preparePage(page: Page, request: RenderRequest, options: PrepareOptions): Promise<PreparedPage> {
  await setUp(page, request, options.guard);
  const status = await navigate(page, request);
  await inject(page, request);
  await wait(page, request);
  const { fonts, title: read } = await fontsReady(page, options);
  const title = read ?? (await page.title().catch(() => ''));
  return { ...(status !== undefined ? { status } : {}), title, fonts };
}
