/**
 * The Browser Rendering REST client (undici), for the local emulator or for Cloudflare itself:
 * the same requests, the binary answers of screenshot/pdf, the v4 envelope of the others, and
 * failures as `RenderClientError` with the status, Cloudflare's codes and Retry-After.
 */
import type * as Undici from 'undici';
import { BROWSER_MS_HEADER, FONTS_HEADER, WAIT_FOR_FONTS_HEADER } from '../contract/renderHeaders';
import { shellQuote } from '../curl';
import { loadUndici } from './loadUndici';

/**
 * undici's `request`, its module read and evaluated on the first call: evaluating and compiling it
 * were a large part of serve's start and of the extension's (docs/performance.md, "Start").
 */
async function request(...args: Parameters<typeof Undici.request>): ReturnType<typeof Undici.request> {
  return loadUndici().request(...args);
}

export const CLOUDFLARE_API = 'https://api.cloudflare.com/client/v4';

export interface RenderTarget {
  /** `…/client/v4`: the emulator's printed URL, or CLOUDFLARE_API. */
  readonly baseUrl: string;
  readonly accountId: string;
  readonly token: string;
}

export type RenderAnswer =
  | { readonly kind: 'binary'; readonly contentType: string; readonly bytes: Buffer; readonly browserMsUsed?: number; readonly fonts?: string }
  | { readonly kind: 'json'; readonly result: unknown; readonly meta?: Record<string, unknown>; readonly browserMsUsed?: number; readonly fonts?: string };

export class RenderClientError extends Error {
  override readonly name = 'RenderClientError';
  constructor(
    readonly status: number,
    /** Cloudflare's internal codes (10000 authentication, 5000–5011 network, 6000–6003 automation…). */
    readonly codes: number[],
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export interface RenderOptions {
  /** Hookbench's emulator only: false captures without waiting for document.fonts.ready. */
  readonly waitForFonts?: boolean;
  readonly signal?: AbortSignal;
}

export function endpointUrl(target: RenderTarget, endpoint: string): string {
  return `${target.baseUrl.replace(/\/+$/, '')}/accounts/${encodeURIComponent(target.accountId)}/browser-rendering/${endpoint}`;
}

/** Hookbench's own routes live at the emulator's root, beside /client/v4. */
export function hookbenchUrl(target: RenderTarget, route: 'font-report' | 'fonts'): string {
  return new URL(`/hookbench/${route}`, target.baseUrl).toString();
}

/** The request as a cURL command; the token shows only when asked, otherwise `$CLOUDFLARE_API_TOKEN`. */
export function renderCurl(target: RenderTarget, endpoint: string, body: unknown, revealToken = false): string {
  const auth = revealToken ? shellQuote(`Authorization: Bearer ${target.token}`) : '"Authorization: Bearer $CLOUDFLARE_API_TOKEN"';
  const output = endpoint === 'screenshot' || endpoint === 'pdf' ? ` \\\n  --output ${endpoint === 'pdf' ? 'page.pdf' : 'screenshot.png'}` : '';
  return `curl -X POST ${shellQuote(endpointUrl(target, endpoint))} \\\n  -H ${auth} \\\n  -H 'Content-Type: application/json' \\\n  --data-binary ${shellQuote(JSON.stringify(body))}${output}`;
}

export class RenderClient {
  constructor(readonly target: RenderTarget) {}

  render(endpoint: string, body: unknown, options: RenderOptions = {}): Promise<RenderAnswer> {
    return this.#post(endpointUrl(this.target, endpoint), body, options);
  }

  /** The emulator's font report for the same body (not a Cloudflare route). */
  async fontReport<T = unknown>(body: unknown, options: RenderOptions = {}): Promise<T> {
    const answer = await this.#post(hookbenchUrl(this.target, 'font-report'), body, options);
    if (answer.kind !== 'json') throw new RenderClientError(500, [], 'the font report answered something other than JSON');
    return answer.result as T;
  }

  /**
   * The emulator's font report and a screenshot or PDF of the same page, in one request (one
   * context): the capture is what the endpoint itself answers for this body.
   */
  async fontReportWithCapture<T = unknown>(
    body: unknown,
    capture: 'screenshot' | 'pdf',
    options: RenderOptions = {},
  ): Promise<{ report: T; contentType: string; bytes: Buffer; browserMsUsed?: number }> {
    const url = new URL(hookbenchUrl(this.target, 'font-report'));
    url.searchParams.set('capture', capture);
    const answer = await this.#post(url.toString(), body, options);
    const result = answer.kind === 'json' ? (answer.result as { capture?: { contentType?: unknown; data?: unknown } } | null) : null;
    const taken = result?.capture;
    if (!result || typeof taken?.contentType !== 'string' || typeof taken.data !== 'string')
      throw new RenderClientError(500, [], `the font report answered without the ${capture}`);
    const { capture: _capture, ...report } = result;
    return {
      report: report as T,
      contentType: taken.contentType,
      bytes: Buffer.from(taken.data, 'base64'),
      ...(answer.browserMsUsed !== undefined ? { browserMsUsed: answer.browserMsUsed } : {}),
    };
  }

  /** The emulator's font catalog with what is installed here. */
  async fonts<T = unknown>(signal?: AbortSignal): Promise<T> {
    const response = await request(hookbenchUrl(this.target, 'fonts'), { method: 'GET', headers: { authorization: `Bearer ${this.target.token}` }, signal });
    const answer = await this.#read(response);
    if (answer.kind !== 'json') throw new RenderClientError(500, [], 'the font catalog answered something other than JSON');
    return answer.result as T;
  }

  async #post(url: string, body: unknown, options: RenderOptions): Promise<RenderAnswer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.target.token}`, 'content-type': 'application/json' };
    if (options.waitForFonts === false) headers[WAIT_FOR_FONTS_HEADER] = 'false';
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: options.signal,
        headersTimeout: 6 * 60_000,
        bodyTimeout: 6 * 60_000,
      });
    } catch (error) {
      throw new RenderClientError(0, [], `cannot reach ${new URL(url).origin}: ${(error as Error).message}`);
    }
    return this.#read(response);
  }

  async #read(response: Awaited<ReturnType<typeof request>>): Promise<RenderAnswer> {
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const contentType = header('content-type') ?? '';
    const bytes = Buffer.from(await response.body.arrayBuffer());
    const msUsed = Number(header(BROWSER_MS_HEADER));
    const fonts = header(FONTS_HEADER);
    const common = { ...(Number.isFinite(msUsed) ? { browserMsUsed: msUsed } : {}), ...(fonts ? { fonts } : {}) };
    if (!contentType.includes('application/json')) {
      if (response.statusCode >= 400)
        throw new RenderClientError(response.statusCode, [], `HTTP ${response.statusCode}: ${bytes.toString('utf8').slice(0, 500)}`);
      return { kind: 'binary', contentType, bytes, ...common };
    }
    let envelope: { success?: boolean; result?: unknown; meta?: Record<string, unknown>; errors?: { code: number; message: string }[] };
    try {
      envelope = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new RenderClientError(response.statusCode, [], `HTTP ${response.statusCode}: the answer is not JSON`);
    }
    if (response.statusCode >= 400 || envelope.success === false) {
      const errors = envelope.errors ?? [];
      const retryAfter = Number(header('retry-after'));
      throw new RenderClientError(
        response.statusCode,
        errors.map((e) => e.code),
        errors.map((e) => e.message).join('; ') || `HTTP ${response.statusCode}`,
        Number.isFinite(retryAfter) ? retryAfter : undefined,
      );
    }
    return { kind: 'json', result: envelope.result, ...(envelope.meta ? { meta: envelope.meta } : {}), ...common };
  }
}
