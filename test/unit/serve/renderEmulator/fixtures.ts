// A render emulator on loopback with Debian's Chromium, a client for it, and a small site the
// pages come from, which records what the browser asked for.
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { RenderClient } from '../../../../src/core/browserRendering/client';
import { lineLogger } from '../../../../src/core/log';
import { RenderServer, type RenderServerOptions } from '../../../../src/serve/renderEmulator/renderServer';

export const TOKEN = 'render-token-for-tests';
/** A font that is installed (fonts-freefont-ttf) but never chosen by default: injected under another name it shows. */
export const FONT_FILE = '/usr/share/fonts/truetype/freefont/FreeMono.ttf';

export interface Emulator {
  readonly server: RenderServer;
  readonly client: RenderClient;
  readonly base: string;
  post(endpoint: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

export async function startEmulator(options: Partial<RenderServerOptions> = {}): Promise<Emulator> {
  const server = new RenderServer({ host: '127.0.0.1', port: 0, token: TOKEN, logger: lineLogger(() => undefined, 'error'), ratePerSecond: 0, ...options });
  const base = await server.listen();
  const client = new RenderClient({ baseUrl: base, accountId: 'test-account', token: TOKEN });
  return {
    server,
    client,
    base,
    post: (endpoint, body, headers = {}) =>
      fetch(`${base}/accounts/test-account/browser-rendering/${endpoint}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    stop: () => server.close(),
  };
}

export interface Site {
  readonly url: string;
  /** Every request the site saw: path and headers. */
  readonly seen: { path: string; headers: http.IncomingHttpHeaders }[];
  /** Pages by path (HTML), added by tests. */
  readonly pages: Map<string, string>;
  /** Resolves once the site has seen a request for `path` (at once if it has). */
  requested(path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * `/hang` never answers; `/slow-font?ms=N` serves FONT_FILE after N ms; `/basic` wants user:pass;
 * `/image.png` is a 1×1 PNG; anything in `pages` is served as HTML.
 */
export async function startSite(fontBytes: Buffer): Promise<Site> {
  const seen: Site['seen'] = [];
  const pages = new Map<string, string>();
  const sockets = new Set<Socket>();
  const waiting = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    seen.push({ path: url.pathname, headers: req.headers });
    for (const look of [...waiting]) look();
    if (url.pathname === '/hang') return;
    if (url.pathname === '/slow-font') {
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'font/ttf', 'access-control-allow-origin': '*' }).end(fontBytes),
        Number(url.searchParams.get('ms') ?? 0),
      );
      return;
    }
    if (url.pathname === '/basic') {
      if (req.headers.authorization !== `Basic ${Buffer.from('user:pass').toString('base64')}`)
        return void res.writeHead(401, { 'www-authenticate': 'Basic realm="t"' }).end('no');
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="ok">authenticated</p>');
    }
    if (url.pathname === '/image.png') {
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    }
    const page = pages.get(url.pathname);
    if (page === undefined) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'visited=yes; Path=/' }).end(page);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    pages,
    requested: (path) =>
      new Promise<void>((resolve) => {
        const look = () => {
          if (!seen.some((r) => r.path === path)) return;
          waiting.delete(look);
          resolve();
        };
        waiting.add(look);
        look();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = Buffer.from(bytes);
  return { width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
}
