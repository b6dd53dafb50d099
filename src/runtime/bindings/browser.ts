/**
 * The Browser Rendering binding (`browser = { binding = "BROWSER" }`): what `@cloudflare/puppeteer`
 * fetches on `env.BROWSER` — acquire a session, list sessions, limits and history, close one, and
 * the DevTools WebSocket, as raw CDP text frames (`/v1/devtools/browser/<id>`, puppeteer 1.x) or
 * in the older length-prefixed binary frames (`/v1/connectDevtools`) — plus `quickAction()`, the
 * binding's Quick Actions. The same routes as Miniflare's binding worker (wrangler dev); the
 * browser behind them is the serve process's (runtime/browserService.ts). docs/runtime.md.
 */
import type { BrowserService, DevToolsChannel } from '../browserService';
import { WebSocketPair, WorkerResponse, type WorkerWebSocket } from '../objects/webSocket';

/** Cloudflare's default and bounds for `keep_alive` (ms without a connection before a session closes). */
export const KEEP_ALIVE = { default: 60_000, min: 10_000, max: 600_000 } as const;

type Answer = (url: URL, headers: Headers, method: string) => Promise<Response> | Response;

const json = (value: unknown, status = 200) => WorkerResponse.json(value, { status });
const text = (message: string, status: number) => new WorkerResponse(message, { status });

export class BrowserBinding {
  constructor(
    private readonly binding: string,
    private readonly service: () => BrowserService | undefined,
  ) {}

  /** `env.BROWSER.fetch(…)`, as `@cloudflare/puppeteer` calls it (any host). */
  async fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const answer = this.route(url.pathname, method);
    if (!answer) return text(`No route for ${method} ${url.pathname} on the browser binding ${this.binding}`, 404);
    try {
      return await answer(url, headers, method);
    } catch (error) {
      return text((error as Error).message, (error as { status?: number }).status ?? 500);
    }
  }

  /** `env.BROWSER.quickAction(action, body)`: the REST API's Quick Actions, answered by the local emulator. */
  quickAction(action: string, body: unknown): Promise<Response> {
    return this.browser().quickAction(action, body);
  }

  private route(pathname: string, method: string): Answer | undefined {
    const session = /^\/v1\/devtools\/browser\/([^/]+)$/.exec(pathname)?.[1];
    if (session !== undefined) {
      if (method === 'DELETE') return async () => json({ status: (await this.browser().close(decodeURIComponent(session))) ? 'closed' : 'not found' });
      return (_url, headers) => this.connect(decodeURIComponent(session), headers, false);
    }
    const detail = /^\/v1\/devtools\/session\/([^/]+)$/.exec(pathname)?.[1];
    if (detail !== undefined) return () => this.detail(decodeURIComponent(detail));
    switch (`${method} ${pathname}`) {
      case 'GET /v1/acquire':
      case 'POST /v1/devtools/browser':
        return async (url) => json({ sessionId: (await this.acquire(url)).sessionId });
      case 'GET /v1/devtools/browser':
        return async (url, headers) => this.connect((await this.acquire(url)).sessionId, headers, false);
      case 'GET /v1/connectDevtools':
        return (url, headers) => this.connect(url.searchParams.get('browser_session') ?? '', headers, true);
      case 'GET /v1/sessions':
        return () => json({ sessions: this.browser().sessions() });
      case 'GET /v1/devtools/session':
        return () => json(this.browser().sessions());
      case 'GET /v1/history':
        return () => json({ history: this.browser().history() });
      case 'GET /v1/limits':
        return () => json(this.browser().limits());
      default:
        return undefined;
    }
  }

  private browser(): BrowserService {
    const service = this.service();
    if (!service)
      throw Object.assign(
        new Error(
          `the browser binding ${this.binding} needs the render emulator, and this hookbench serve runs without it (--no-render, or its port was busy: see the log)`,
        ),
        { status: 503 },
      );
    return service;
  }

  private acquire(url: URL): ReturnType<BrowserService['acquire']> {
    if (url.searchParams.get('browser') !== null)
      throw Object.assign(new Error(`browser=${url.searchParams.get('browser')}: only the default Chromium is available locally`), { status: 400 });
    const keepAlive = url.searchParams.get('keep_alive');
    const keepAliveMs = keepAlive === null ? undefined : Number(keepAlive);
    if (keepAliveMs !== undefined && !(Number.isInteger(keepAliveMs) && keepAliveMs >= KEEP_ALIVE.min && keepAliveMs <= KEEP_ALIVE.max)) {
      throw Object.assign(new Error(`keep_alive: ${keepAlive} is not a whole number of ms from ${KEEP_ALIVE.min} to ${KEEP_ALIVE.max}`), { status: 400 });
    }
    return this.browser().acquire({ binding: this.binding, ...(keepAliveMs !== undefined ? { keepAliveMs } : {}) });
  }

  private detail(sessionId: string): Response {
    const found = this.browser()
      .sessions()
      .find((session) => session.sessionId === sessionId);
    return found ? json(found) : json({ error: 'Session not found' }, 404);
  }

  /** The session's DevTools WebSocket: the worker gets the client end, the server end relays to Chromium. */
  private connect(sessionId: string, headers: Headers, chunked: boolean): Response {
    if (headers.get('upgrade')?.toLowerCase() !== 'websocket') return text('Expected Upgrade: websocket', 426);
    if (sessionId === '') return text('browser_session must be set', 400);
    let channel: DevToolsChannel;
    try {
      channel = this.browser().connect(sessionId);
    } catch (error) {
      return text((error as Error).message, (error as { status?: number }).status ?? 409);
    }
    const pair = new WebSocketPair();
    relay(pair[1], channel, chunked);
    return new WorkerResponse(null, { status: 101, webSocket: pair[0], headers: { 'cf-browser-session-id': sessionId } });
  }
}

/** Frames between the worker's WebSocket and the session's DevTools channel, both ways. */
function relay(server: WorkerWebSocket, channel: DevToolsChannel, chunked: boolean): void {
  server.accept();
  const incoming = chunked ? new ChunkedMessages() : undefined;
  channel.listen(
    (message) => {
      if (server.readyState === 1) server.send(incoming ? frame(message) : message);
    },
    () => server.close(1000, 'Browser closed'),
  );
  server.addEventListener('message', (event) => {
    const data = (event as MessageEvent).data as string | ArrayBuffer;
    if (!incoming) return channel.send(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
    if (data === 'ping') return;
    const message = incoming.add(typeof data === 'string' ? Buffer.from(data) : new Uint8Array(data));
    if (message !== undefined) channel.send(message);
  });
  server.addEventListener('close', () => channel.disconnect());
}

/** The older binding's frame: the message's UTF-8 length (32-bit little-endian) before its bytes. */
function frame(message: string): Uint8Array {
  const bytes = Buffer.from(message, 'utf8');
  const framed = new Uint8Array(bytes.length + 4);
  new DataView(framed.buffer).setUint32(0, bytes.length, true);
  framed.set(bytes, 4);
  return framed;
}

/** Reassembles the older client's messages: a length-prefixed first chunk, then raw chunks until that length. */
class ChunkedMessages {
  private expected = 0;
  private parts: Uint8Array[] = [];
  private received = 0;

  add(chunk: Uint8Array): string | undefined {
    if (this.parts.length === 0) {
      this.expected = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength).getUint32(0, true);
      chunk = chunk.subarray(4);
    }
    this.parts.push(chunk);
    this.received += chunk.byteLength;
    if (this.received < this.expected) return undefined;
    const message = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    this.received = 0;
    return message;
  }
}
