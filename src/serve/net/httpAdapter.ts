/**
 * node:http ↔ fetch: an IncomingMessage becomes a `Request` with the raw body bytes untouched, a
 * `Response` is written back. A body over the limit is refused with 413 before it is buffered.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(
    readonly limit: number,
    /** The Content-Length that was over the limit; undefined when the body grew past it while read. */
    readonly declared?: number,
  ) {
    super(`request body larger than ${limit} bytes`);
  }
}

/**
 * The body, refused by its Content-Length before any of it is read, or as soon as it grows past
 * `limit`. `accepted` runs once the declared size is within the limit (the `100 Continue`).
 */
export async function readBody(req: IncomingMessage, limit: number, accepted?: () => void): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit, declared);
  accepted?.();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

export class BadRequestTargetError extends Error {}

const SAFE_HOST = /^(?:[\w.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The request's absolute URL. The target is a path (`//evil.example/x` stays a path, never a host);
 * the Host header is used only when it is a plain host[:port]. An unparseable target throws
 * BadRequestTargetError, which callers answer with 400.
 */
export function requestUrl(req: IncomingMessage, fallbackOrigin: string): string {
  const host = req.headers.host;
  const origin = host && SAFE_HOST.test(host) ? `http://${host}` : fallbackOrigin;
  const target = req.url ?? '/';
  try {
    if (target.startsWith('/')) return new URL(origin + target).toString();
    // The absolute form (`POST http://host/path`) keeps only its path and query.
    const absolute = new URL(target);
    return new URL(origin + absolute.pathname + absolute.search).toString();
  } catch {
    throw new BadRequestTargetError(`bad request target ${JSON.stringify(target.slice(0, 200))}`);
  }
}

/**
 * Headers about the client's connection to the receiver, which a worker never sees under wrangler
 * dev (nor on Cloudflare, whose edge ends that connection): `Connection`, `Keep-Alive` and `TE`.
 * An upgrade keeps its `Connection: Upgrade`, as there.
 */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'te']);

export function toRequest(req: IncomingMessage, url: string, body: Buffer | undefined, rawHeaders: readonly string[] = req.rawHeaders): Request {
  // Name/value pairs as they came, repeats included; a Request fills its headers from them directly.
  const upgrade = req.headers.upgrade !== undefined;
  const headers: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (!CONNECTION_HEADERS.has(name.toLowerCase()) || (upgrade && name.toLowerCase() === 'connection')) headers.push([name, rawHeaders[i + 1]!]);
  }
  const method = req.method ?? 'GET';
  const hasBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
  // A request from the network does not follow redirects when passed on (workerd: `redirect` is "manual").
  return new Request(url, { method, headers, body: hasBody ? body : undefined, redirect: 'manual' });
}

/** Streams a response (server-sent events and the like) with the given headers. */
export async function writeResponse(res: ServerResponse, response: Response, headers: Record<string, string>): Promise<void> {
  const cookies = response.headers.getSetCookie();
  res.writeHead(response.status, response.statusText || undefined, cookies.length > 0 ? { ...headers, 'set-cookie': cookies } : headers);
  if (response.body) {
    for await (const chunk of response.body) res.write(chunk);
  }
  res.end();
}

export function writeText(res: ServerResponse, status: number, text: string): void {
  writeTyped(res, status, 'text/plain;charset=UTF-8', text);
}

/** An HTML answer (wrangler dev's error page's content type). */
export function writeHtml(res: ServerResponse, status: number, html: string): void {
  writeTyped(res, status, 'text/html;charset=utf-8', html);
}

function writeTyped(res: ServerResponse, status: number, type: string, text: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': type });
  res.end(text);
}
