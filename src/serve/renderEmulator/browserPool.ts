/**
 * One warm Chromium (Debian's, through puppeteer-core) shared by every render: a fresh incognito
 * context per request so no cookie, cache or storage leaks between renders, at most `concurrency`
 * pages at once (the rest wait in line, a bounded line), and a new browser launched on the next
 * request after Chromium dies or is killed. A new page costs Chromium a renderer process, so spare
 * contexts and pages are opened ahead of the next requests, each never used twice: `spares` of
 * them (two by default), the oldest taken first. Two, not one: a page's first screenshot soon after
 * its opening takes longer (docs/performance.md, "Render"), so with one spare a user's requests
 * 300 ms apart each met a page just opened; with two, each takes one opened a request earlier, and
 * two requests sent together (a script's `Promise.all`) both start from a spare. A spare is set to
 * the viewport and user agent the last request asked for, with request interception already on
 * (its filter is the next request's, given in `interceptRequests`). A spare's context is created
 * after a render's context is closed, and nothing is loaded in it before its request.
 */
import * as fs from 'node:fs';
import type { Browser, BrowserContext, HTTPRequest, Page } from 'puppeteer-core';
import type { Logger } from '../../core/log';
import { RenderError } from '../../core/browserRendering/errors';
import { DEFAULT_USER_AGENT } from '../../core/browserRendering/request';
import { withDeadline } from '../../core/timers';
import { loadPuppeteer } from './loadPuppeteer';

export interface BrowserPoolOptions {
  readonly logger: Logger;
  /** Defaults to HOOKBENCH_CHROMIUM, then Debian's /usr/bin/chromium. */
  readonly executablePath?: string;
  /** Pages rendering at once (default 4). */
  readonly concurrency?: number;
  /** Requests allowed to wait for a page before 503 "No browser available" (default 64). */
  readonly maxQueue?: number;
  /** Spare contexts kept open ahead (default 2); each idle one is a renderer process (docs/performance.md, "Render"). */
  readonly spares?: number;
  /** The proxy pages' requests go through (pageGuard.ts), as `--proxy-server`. */
  readonly proxyServer?: () => string | undefined;
}

type Opened = { browser: Browser; context: BrowserContext; page: Page };

const DEFAULT_VIEWPORT = { width: 1920, height: 1080, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: false };
type Viewport = typeof DEFAULT_VIEWPORT;
interface Settings {
  readonly viewport: Viewport;
  readonly userAgent: string;
}
const primed = new WeakMap<Page, Settings>();
/** Pages whose request interception the pool turned on ahead, and the filter their request set. */
const filters = new WeakMap<Page, { allowed?: (url: string, type: string) => boolean }>();

const sameViewport = (a: Viewport, b: Viewport) => JSON.stringify({ ...DEFAULT_VIEWPORT, ...a }) === JSON.stringify({ ...DEFAULT_VIEWPORT, ...b });

/** Whether a page from the pool already has this viewport and user agent (setting them again costs time: docs/performance.md, "Render"). */
export function alreadySet(page: Page, viewport: Viewport, userAgent: string): { viewport: boolean; userAgent: boolean } {
  const set = primed.get(page);
  return { viewport: set !== undefined && sameViewport(set.viewport, viewport), userAgent: set?.userAgent === userAgent };
}

/** Records what a request set, so the pool opens its next spare the same way. */
export function noteSettings(page: Page, viewport: Viewport, userAgent: string): void {
  primed.set(page, { viewport: { ...DEFAULT_VIEWPORT, ...viewport }, userAgent });
}

/**
 * Sends every request of the page through `allowed` (continue or abort). A spare page has
 * interception on already, so this only sets its filter; any other page turns it on here.
 */
export async function interceptRequests(page: Page, allowed: (url: string, type: string) => boolean): Promise<void> {
  const ahead = filters.get(page);
  if (ahead) {
    ahead.allowed = allowed;
    return;
  }
  filters.set(page, { allowed });
  await listenToRequests(page);
}

async function listenToRequests(page: Page): Promise<void> {
  await page.setRequestInterception(true);
  page.on('request', (intercepted: HTTPRequest) => {
    if (intercepted.isInterceptResolutionHandled()) return;
    // A page whose request has not set its filter yet loads nothing.
    if (filters.get(page)?.allowed?.(intercepted.url(), intercepted.resourceType())) void intercepted.continue().catch(() => undefined);
    else void intercepted.abort('blockedbyclient').catch(() => undefined);
  });
}

const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function findChromium(explicit?: string): string {
  const wanted = explicit ?? process.env['HOOKBENCH_CHROMIUM'];
  if (wanted) return wanted;
  const found = CHROMIUM_CANDIDATES.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new RenderError(503, 503, 'No browser available: Chromium is not installed (Debian: apt-get install chromium), or set HOOKBENCH_CHROMIUM');
  return found;
}

const LAUNCH_ARGS = [
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--hide-scrollbars',
  '--mute-audio',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Fonts must load in pages that are never shown; throttled timers would stall document.fonts.ready.
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
  // Each new context is a window of its own, and Chromium built its omnibox popups' WebUI for every
  // one: a renderer busy in the background after each request's context opened, while the next
  // request rendered (docs/performance.md, "Render"). Nothing shows them.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
];

/**
 * The sandbox stays on, except as root: Chromium will not start as root with it (and root in a
 * container has no user namespaces for it); the pages then come from the developer's own requests.
 */
export function launchArgs(proxyServer?: string): string[] {
  const args = proxyServer ? [...LAUNCH_ARGS, `--proxy-server=${proxyServer}`] : [...LAUNCH_ARGS];
  return process.getuid?.() === 0 ? ['--no-sandbox', ...args] : args;
}

/** How long closing the pool may take before Chromium is killed. */
const CLOSE_GRACE_MS = 5_000;

export class BrowserPool {
  readonly #options: BrowserPoolOptions;
  #browser: Promise<Browser> | undefined;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  #closed = false;
  /** Spares opened ahead, oldest first. */
  #spares: Promise<Opened>[] = [];
  /** Renders' contexts closing, after which their slots are free and the next spares open. */
  readonly #settling = new Set<Promise<void>>();
  /** The viewport and user agent of the last render: the next spare is opened with them. */
  #settings: Settings = { viewport: DEFAULT_VIEWPORT, userAgent: DEFAULT_USER_AGENT };
  /** Times Chromium went away while running: a render that saw this change lost its browser. */
  crashes = 0;

  constructor(options: BrowserPoolOptions) {
    this.#options = options;
  }

  get concurrency(): number {
    return this.#options.concurrency ?? 4;
  }

  /**
   * Runs `work` on a new page in a new incognito context and answers as soon as it is done; the
   * context is closed afterwards whatever happens (closing costs Chromium tens of ms, which the
   * caller does not wait for), and only then is its slot given to the next request and the next
   * spare opened.
   */
  async withPage<T>(work: (page: Page) => Promise<T>): Promise<T> {
    await this.#acquire();
    let opened: { context: BrowserContext; page: Page };
    try {
      opened = await this.#freshPage();
    } catch (error) {
      this.#release();
      throw error;
    }
    const { context, page } = opened;
    try {
      return await work(page);
    } finally {
      this.#settings = primed.get(page) ?? this.#settings;
      const settled = context
        .close()
        .catch(() => undefined)
        .then(() => {
          this.#release();
          this.#prepareSpare();
        });
      this.#settling.add(settled);
      void settled.then(() => this.#settling.delete(settled));
    }
  }

  /** Opens spares until `spares` are open, once a render is done, so building them never slows that render down. */
  #prepareSpare(): void {
    const browser = this.#browser;
    if (this.#closed || !browser) return;
    while (this.#spares.length < (this.#options.spares ?? 2)) {
      const spare = browser.then((b) => this.#open(b, true));
      spare.catch(() => undefined);
      this.#spares.push(spare);
    }
  }

  /** The oldest spare when it belongs to the running browser, else a new page. */
  async #freshPage(): Promise<{ context: BrowserContext; page: Page }> {
    // Taken synchronously: two requests arriving together must never share a spare.
    const pending = this.#spares.shift();
    const spare = await pending?.catch(() => undefined);
    const browser = await this.#ensureBrowser();
    const usable = spare && spare.browser === browser && browser.connected;
    if (spare && !usable) void spare.context.close().catch(() => undefined);
    return usable ? spare : this.#open(browser, false);
  }

  /**
   * A new context and page. A spare is set ahead to the last request's viewport and user agent
   * (Cloudflare's defaults at first), with request interception on; a page opened for a waiting
   * request is left as it is, its request sets what it needs.
   */
  async #open(browser: Browser, ahead: boolean): Promise<Opened> {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      if (ahead) {
        const { viewport, userAgent } = this.#settings;
        await page.setViewport(viewport);
        await page.setUserAgent(userAgent);
        primed.set(page, { viewport, userAgent });
        filters.set(page, {});
        await listenToRequests(page);
      }
      return { browser, context, page };
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Closes the spare and the browser. Bounded: a CDP call that never answers (a context still
   * closing after its render answered, a wedged Chromium) must not keep `serve` from stopping, so
   * after CLOSE_GRACE_MS Chromium is killed.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const graceful = (async () => {
      await Promise.all(this.#settling);
      const spares = await Promise.all(this.#spares.splice(0).map((spare) => spare.catch(() => undefined)));
      await Promise.all(spares.map((spare) => spare?.context.close().catch(() => undefined)));
      const browser = await this.#browser?.catch(() => undefined);
      await browser?.close();
    })().then(
      () => true,
      () => false,
    );
    const closed = (await withDeadline(graceful, CLOSE_GRACE_MS)) ?? false;
    const browser = await this.#browser?.catch(() => undefined);
    this.#browser = undefined;
    if (!closed) {
      this.#options.logger.warn(`[render] Chromium did not close within ${CLOSE_GRACE_MS} ms; killed`);
      browser?.process()?.kill('SIGKILL');
    }
  }

  #ensureBrowser(): Promise<Browser> {
    if (this.#closed) return Promise.reject(new RenderError(503, 503, 'No browser available: the render emulator is stopping'));
    this.#browser ??= this.#launch();
    return this.#browser;
  }

  async #launch(): Promise<Browser> {
    const executablePath = findChromium(this.#options.executablePath);
    const started = performance.now();
    try {
      // DevTools over a pipe (fds 3 and 4), not --remote-debugging-port: a port on loopback would let
      // any local user drive this browser, read its pages and open file:// URLs as this user.
      const browser = await loadPuppeteer().launch({
        executablePath,
        headless: true,
        pipe: true,
        args: launchArgs(this.#options.proxyServer?.()),
        defaultViewport: null,
        protocolTimeout: 120_000,
      });
      this.#options.logger.info(`[render] Chromium ${await browser.version()} started in ${Math.round(performance.now() - started)} ms`);
      browser.once('disconnected', () => {
        if (this.#closed) return;
        this.crashes++;
        this.#options.logger.warn('[render] Chromium exited; the next render starts a new one');
        this.#browser = undefined;
      });
      return browser;
    } catch (error) {
      this.#browser = undefined;
      throw new RenderError(503, 503, `No browser available: Chromium at ${executablePath} did not start: ${(error as Error).message}`);
    }
  }

  #acquire(): Promise<void> {
    if (this.#active < this.concurrency) {
      this.#active++;
      return Promise.resolve();
    }
    if (this.#waiting.length >= (this.#options.maxQueue ?? 64)) {
      return Promise.reject(new RenderError(503, 503, 'No browser available. Please try again in a few minutes.'));
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active--;
  }
}
