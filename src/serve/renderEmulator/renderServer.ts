/**
 * The local Browser Rendering emulator (docs/render.md): Cloudflare's REST routes under
 * `/client/v4/accounts/<id>/browser-rendering/<endpoint>` (and `/browser-run/`), the origin and
 * host check (access.ts: no web page may drive the browser), the Bearer token,
 * the v4 envelopes and status codes, `X-Browser-Ms-Used`, a rate limit answering 429 with
 * Retry-After; plus Hookbench's own `POST /hookbench/font-report` and `GET /hookbench/fonts`.
 */
import { execFile } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { Logger } from '../../core/log';
import { catalogWith, type CatalogEntry } from '../../core/browserRendering/fontCatalog';
import { failureEnvelope, RenderError, successEnvelope } from '../../core/browserRendering/errors';
import { validateRenderRequest, type RenderRequest } from '../../core/browserRendering/request';
import { BROWSER_MS_HEADER, FONTS_HEADER, WAIT_FOR_FONTS_HEADER, waitsForFonts } from '../../core/contract/renderHeaders';
import { safeEqualText } from '../../core/signing/crypto';
import { checkAccess, DEFAULT_POLICY, type AccessPolicy } from '../net/access';
import { PeerIdentifier } from '../net/localPeer';
import { BodyTooLargeError, readBody, requestUrl } from '../net/httpAdapter';
import { runAction, type ActionResult, type ReportCapture } from './actions';
import { BrowserPool } from './browserPool';
import { BrowserSessions } from './browserSessions';
import { renderFailure, within } from './failures';
import { PageGuard } from './pageGuard';
import { preparePage } from './preparePage';
import { RateLimit } from './rateLimit';

export interface RenderServerOptions {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly logger: Logger;
  /** Requests a second before 429 (default 30, Workers Paid; 0 turns the limit off). */
  readonly ratePerSecond?: number;
  readonly concurrency?: number;
  /** The most spare contexts opened ahead (BrowserPool's `spares`, default 2). */
  readonly spares?: number;
  readonly executablePath?: string;
  /** The largest request body (default 50 MB, as Cloudflare's /pdf). */
  readonly bodyLimit?: number;
  /** Who may call it besides non-browser clients (default: loopback and VS Code origins only). */
  readonly access?: AccessPolicy;
  /** The receiver's port: its admin routes are refused to pages (docs/security.md, The browser). */
  readonly receiverPort?: number;
  /** Every address a host name resolves to, for the page guard (default: the system's resolver). */
  readonly lookup?: (hostname: string) => Promise<string[]>;
}

const ROUTE = /^\/client\/v4\/accounts\/([^/]+)\/(?:browser-rendering|browser-run)\/([A-Za-z]+)\/?$/;

async function installedFamilies(): Promise<string[]> {
  try {
    const { stdout } = await promisify(execFile)('fc-list', [':', 'family'], { maxBuffer: 16 * 1024 * 1024 });
    return stdout.split('\n').filter((line) => line.trim() !== '');
  } catch {
    return [];
  }
}

/** The font report's `?capture=`: none, or the capture it also takes of the same page. */
function reportCapture(value: string | null): ReportCapture | undefined {
  if (value === null) return undefined;
  if (value === 'screenshot' || value === 'pdf') return value;
  throw new RenderError(400, 400, `capture: screenshot or pdf, not ${JSON.stringify(value.slice(0, 40))}`);
}

export class RenderServer {
  readonly #pool: BrowserPool;
  /** The Browser Rendering binding's sessions (a worker's `env.BROWSER`), on the same Chromium and guard. */
  readonly browser: BrowserSessions;
  readonly #options: RenderServerOptions;
  readonly #guard: PageGuard;
  readonly #server: http.Server;
  readonly #rate: RateLimit;
  readonly #peers = new PeerIdentifier();
  #url = '';

  constructor(options: RenderServerOptions) {
    this.#options = options;
    this.#guard = new PageGuard({
      logger: options.logger,
      own: () => ({ receiverPort: options.receiverPort, renderPort: (this.#server.address() as AddressInfo | null)?.port }),
      lookup: options.lookup,
    });
    this.#pool = new BrowserPool({
      logger: options.logger,
      concurrency: options.concurrency,
      spares: options.spares,
      executablePath: options.executablePath,
      proxyServer: () => this.#guard.proxyUrl,
    });
    this.browser = new BrowserSessions({
      logger: options.logger,
      executablePath: options.executablePath,
      proxyServer: () => this.#guard.proxyUrl,
      quickAction: (action, body) => this.#quickAction(action, body),
    });
    this.#rate = new RateLimit(options.ratePerSecond ?? 30);
    this.#server = http.createServer((req, res) => void this.#handle(req, res));
    this.#server.headersTimeout = 30_000;
    this.#server.requestTimeout = 6 * 60_000;
  }

  /** `http://HOST:PORT/client/v4`, the base URL a Cloudflare client takes. */
  get url(): string {
    return this.#url;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#options.port, this.#options.host, () => resolve());
    });
    const { port } = this.#server.address() as AddressInfo;
    const host = this.#options.host.includes(':') ? `[${this.#options.host}]` : this.#options.host;
    await this.#guard.listen();
    this.#url = `http://${host}:${port}/client/v4`;
    return this.#url;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await this.browser.closeAll();
    await this.#pool.close();
    await this.#guard.close();
  }

  /** A binding's Quick Action: the same request as the REST API's, through this emulator. */
  #quickAction(action: string, body: unknown): Promise<Response> {
    if (!/^[A-Za-z]+$/.test(action))
      return Promise.resolve(
        Response.json(failureEnvelope(new RenderError(400, 400, `action: ${JSON.stringify(action)} is not a Quick Action`)), { status: 400 }),
      );
    return fetch(`${this.#url}/accounts/local/browser-rendering/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.#options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = performance.now();
    let browserMs = 0;
    const headers = (): Record<string, string> => ({ [BROWSER_MS_HEADER]: String(Math.round(browserMs)) });
    try {
      let url: URL;
      try {
        url = new URL(requestUrl(req, 'http://localhost'));
      } catch {
        throw new RenderError(400, 400, 'Bad request target');
      }
      // A web page must not drive the browser, even with a token it guessed or was given: no route here is a webhook.
      const peer = await this.#peers.identify(req.socket);
      const access = checkAccess(req.headers, url.pathname, {
        boundHost: this.#options.host,
        policy: { ...(this.#options.access ?? DEFAULT_POLICY), openPaths: [] },
        upgrade: false,
        peer,
      });
      if (!access.allowed) {
        this.#options.logger.warn(`[security] the render emulator refused ${req.method} ${url.pathname}: ${access.reason}`);
        throw new RenderError(403, 403, access.answer);
      }
      const route = this.#route(req.method ?? 'GET', url.pathname);
      if (!this.#authorized(req)) throw new RenderError(401, 10000, 'Authentication failed');
      if (route === 'fonts') return this.#json(res, 200, successEnvelope(catalogWith(await installedFamilies()) satisfies CatalogEntry[]), headers());
      const retryAfter = this.#rate.take();
      if (retryAfter > 0) throw new RenderError(429, 429, 'Rate limit exceeded', retryAfter);
      if (url.searchParams.get('browser') === 'kitesurf') throw new RenderError(400, 400, 'browser: the Kitesurf engine is not available locally');
      const capture = route === 'font-report' ? reportCapture(url.searchParams.get('capture')) : undefined;
      const request = await this.#readRequest(req, route, capture);
      const refusal = request.url !== undefined ? await this.#guard.resolved(request.url) : undefined;
      if (refusal) {
        this.#guard.refused(request.url!, refusal);
        throw new RenderError(400, 400, `url: ${refusal}; a rendered page may not load it`);
      }
      const waitForFonts = waitsForFonts(req.headers[WAIT_FOR_FONTS_HEADER]);
      const browserStart = performance.now();
      const crashes = this.#pool.crashes;
      try {
        const { result, fonts } = await this.#pool.withPage(async (page) => {
          const prepared = await preparePage(page, request, { waitForFonts, guard: this.#guard });
          // actionTimeout bounds the action itself (Cloudflare: 422 when it runs out).
          const action = runAction(page, request, prepared, route, waitForFonts, capture);
          const result = request.actionTimeout !== undefined ? await within(request.actionTimeout, 'the action (actionTimeout)', action) : await action;
          return { result, fonts: prepared.fonts };
        });
        browserMs = performance.now() - browserStart;
        this.#answer(res, result, { ...headers(), [FONTS_HEADER]: fonts });
      } catch (error) {
        browserMs = performance.now() - browserStart;
        // Whatever Puppeteer said, the cause was the browser going away mid-render.
        if (this.#pool.crashes !== crashes && !(error instanceof RenderError))
          throw new RenderError(422, 6001, `the browser closed during the render (${(error as Error).message})`);
        throw this.#guard.explain(error);
      }
    } catch (error) {
      const failure = renderFailure(error);
      if (failure.status >= 500) this.#options.logger.warn(`[render] ${req.method} ${req.url} → ${failure.status}: ${failure.message}`);
      const extra: Record<string, string> = failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {};
      this.#json(res, failure.status, failureEnvelope(failure), { ...headers(), ...extra });
    } finally {
      this.#options.logger.debug(`[render] ${req.method} ${req.url} ${res.statusCode} in ${Math.round(performance.now() - started)} ms`);
    }
  }

  /** The endpoint a path names, 'font-report' or 'fonts'; 404 and 405 otherwise. */
  #route(method: string, pathname: string): RenderRequest['endpoint'] | 'font-report' | 'fonts' {
    if (pathname === '/hookbench/fonts') {
      if (method !== 'GET') throw new RenderError(405, 405, 'Method not allowed: GET /hookbench/fonts');
      return 'fonts';
    }
    const endpoint = pathname === '/hookbench/font-report' ? 'font-report' : ROUTE.exec(pathname)?.[2];
    if (!endpoint) throw new RenderError(404, 404, `No route for ${pathname}: use /client/v4/accounts/<account id>/browser-rendering/<endpoint>`);
    if (method !== 'POST') throw new RenderError(405, 405, `Method not allowed: ${method} (Quick Actions are POST)`);
    if (endpoint === 'crawl') throw new RenderError(501, 501, 'The crawl endpoint is not available locally');
    return endpoint as RenderRequest['endpoint'] | 'font-report';
  }

  #authorized(req: http.IncomingMessage): boolean {
    const header = req.headers.authorization ?? '';
    return header.startsWith('Bearer ') && safeEqualText(header.slice(7), this.#options.token);
  }

  async #readRequest(req: http.IncomingMessage, route: RenderRequest['endpoint'] | 'font-report', capture?: ReportCapture): Promise<RenderRequest> {
    let body: Buffer;
    try {
      body = await readBody(req, this.#options.bodyLimit ?? 50 * 1024 * 1024);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new RenderError(413, 413, 'Error: request entity too large');
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw new RenderError(400, 400, `body: not valid JSON (${(error as Error).message})`);
    }
    if (route !== 'font-report') return validateRenderRequest(route, json);
    // With a capture, the body is that endpoint's, checked as it would be.
    if (capture) return validateRenderRequest(capture, json);
    // The font report takes a screenshot's or a PDF's body; PDF options change nothing it reports.
    const { pdfOptions: _pdf, ...rest } = (json ?? {}) as Record<string, unknown>;
    return validateRenderRequest('screenshot', rest);
  }

  #answer(res: http.ServerResponse, result: ActionResult, headers: Record<string, string>): void {
    if (result.kind === 'json') return this.#json(res, 200, successEnvelope(result.result, result.meta), headers);
    res.writeHead(200, { ...headers, 'content-type': result.contentType, 'content-length': String(result.bytes.byteLength) });
    res.end(result.bytes);
  }

  #json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
    if (res.headersSent) return void res.end();
    const text = JSON.stringify(body);
    res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  }
}
