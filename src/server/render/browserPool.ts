/**
 * One warm Chromium (Debian's, through puppeteer-core) shared by every render: a fresh incognito
 * context per request so no cookie, cache or storage leaks between renders, at most `concurrency`
 * pages at once (the rest wait in line, a bounded line), and a new browser launched on the next
 * request after Chromium dies or is killed. A new page costs Chromium a renderer process (100–200 ms
 * here), so one spare context and page are opened ahead of the next request, never used twice.
 */
import * as fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { Logger } from '../../core/log';
import { RenderError } from '../../core/render/errors';
import { DEFAULT_USER_AGENT } from '../../core/render/request';
import { loadPuppeteer } from './loadPuppeteer';

export interface BrowserPoolOptions {
  readonly logger: Logger;
  /** Defaults to HOOKBENCH_CHROMIUM, then Debian's /usr/bin/chromium. */
  readonly executablePath?: string;
  /** Pages rendering at once (default 4). */
  readonly concurrency?: number;
  /** Requests allowed to wait for a page before 503 "No browser available" (default 64). */
  readonly maxQueue?: number;
}

const DEFAULT_VIEWPORT = { width: 1920, height: 1080, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: false };
const primed = new WeakMap<Page, { viewport: string; userAgent: string }>();

/** Whether a page from the pool already has this viewport and user agent (setting them again costs 10–60 ms). */
export function alreadySet(page: Page, viewport: typeof DEFAULT_VIEWPORT, userAgent: string): { viewport: boolean; userAgent: boolean } {
  const set = primed.get(page);
  const same = { ...DEFAULT_VIEWPORT, ...viewport };
  return { viewport: set?.viewport === JSON.stringify(same), userAgent: set?.userAgent === userAgent };
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
];

/**
 * The sandbox stays on, except as root: Chromium will not start as root with it (and root in a
 * container has no user namespaces for it); the pages then come from the developer's own requests.
 */
function launchArgs(): string[] {
  return process.getuid?.() === 0 ? ['--no-sandbox', ...LAUNCH_ARGS] : [...LAUNCH_ARGS];
}

export class BrowserPool {
  readonly #options: BrowserPoolOptions;
  #browser: Promise<Browser> | undefined;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  #closed = false;
  #spare: Promise<{ browser: Browser; context: BrowserContext; page: Page }> | undefined;
  /** Chromium launches so far (the tests and the benchmark read it). */
  launches = 0;
  /** Times Chromium went away while running: a render that saw this change lost its browser. */
  crashes = 0;

  constructor(options: BrowserPoolOptions) {
    this.#options = options;
  }

  get concurrency(): number {
    return this.#options.concurrency ?? 4;
  }

  /** Runs `work` on a new page in a new incognito context, closed afterwards whatever happens. */
  async withPage<T>(work: (page: Page) => Promise<T>): Promise<T> {
    await this.#acquire();
    try {
      const { context, page } = await this.#freshPage();
      try {
        return await work(page);
      } finally {
        await context.close().catch(() => undefined);
        this.#prepareSpare();
      }
    } finally {
      this.#release();
    }
  }

  /** Opens the next spare once a render is done, so building it never slows a render down. */
  #prepareSpare(): void {
    const browser = this.#browser;
    if (this.#closed || this.#spare || !browser) return;
    this.#spare = browser.then((b) => this.#open(b));
    this.#spare.catch(() => undefined);
  }

  /** The spare page when it belongs to the running browser, else a new one; then the next spare. */
  async #freshPage(): Promise<{ context: BrowserContext; page: Page }> {
    // Taken synchronously: two requests arriving together must never share the spare.
    const pending = this.#spare;
    this.#spare = undefined;
    const spare = await pending?.catch(() => undefined);
    const browser = await this.#ensureBrowser();
    const taken = spare && spare.browser === browser && browser.connected ? spare : await this.#open(browser);
    if (spare && spare !== taken) void spare.context.close().catch(() => undefined);
    return taken;
  }

  /** A new context and page, set to Cloudflare's default viewport and user agent, which most requests keep. */
  async #open(browser: Browser): Promise<{ browser: Browser; context: BrowserContext; page: Page }> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport(DEFAULT_VIEWPORT);
    await page.setUserAgent(DEFAULT_USER_AGENT);
    primed.set(page, { viewport: JSON.stringify(DEFAULT_VIEWPORT), userAgent: DEFAULT_USER_AGENT });
    return { browser, context, page };
  }

  /** The running browser's process id, if any (fault-injection tests kill it). */
  async pid(): Promise<number | undefined> {
    const browser = await this.#browser?.catch(() => undefined);
    return browser?.process()?.pid;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const spare = await this.#spare?.catch(() => undefined);
    await spare?.context.close().catch(() => undefined);
    const browser = await this.#browser?.catch(() => undefined);
    this.#browser = undefined;
    await browser?.close().catch(() => browser.process()?.kill('SIGKILL'));
  }

  #ensureBrowser(): Promise<Browser> {
    if (this.#closed) return Promise.reject(new RenderError(503, 503, 'No browser available: the render emulator is stopping'));
    this.#browser ??= this.#launch();
    return this.#browser;
  }

  async #launch(): Promise<Browser> {
    const executablePath = findChromium(this.#options.executablePath);
    this.launches++;
    const started = performance.now();
    try {
      // DevTools over a pipe (fds 3 and 4), not --remote-debugging-port: a port on loopback would let
      // any local user drive this browser, read its pages and open file:// URLs as this user.
      const browser = await loadPuppeteer().launch({ executablePath, headless: true, pipe: true, args: launchArgs(), defaultViewport: null, protocolTimeout: 120_000 });
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
