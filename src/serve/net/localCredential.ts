/**
 * The owner's credential, for platforms that cannot name a loopback connection's user (macOS,
 * Windows) and where another user may log in: with `serve --require-token`, the agents routes,
 * WebSockets, the sink, the admin API and the render emulator answer a loopback client only when
 * it shows the admin token (docs/security.md, "On macOS and Windows"). Tools send it as a header;
 * an `AgentClient` as a query parameter; a browser gets a session cookie once, from a login URL
 * that serve writes to a file only its owner can read (Jupyter's way). None of the three reaches
 * the worker: each is taken off the request before the worker sees it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LOGIN_PATH, SESSION_COOKIE, TOKEN_HEADER, TOKEN_PARAM } from '../../core/contract/ownerToken';

export { LOGIN_PATH };

/** The cookie's value for a token: a keyed hash, so the cookie never holds the token itself. */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('hookbench session').digest('hex');
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The value of one cookie in a Cookie header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Whether the request shows `token` in any of its forms (the admin API's own `Authorization: Bearer` among them). */
export function showsCredential(headers: IncomingHttpHeaders, url: URL, token: string): boolean {
  const header = headers[TOKEN_HEADER];
  if (typeof header === 'string' && same(header, token)) return true;
  if (typeof headers.authorization === 'string' && same(headers.authorization, `Bearer ${token}`)) return true;
  const param = url.searchParams.get(TOKEN_PARAM);
  if (param !== null && same(param, token)) return true;
  const cookie = cookieValue(headers.cookie, SESSION_COOKIE);
  return cookie !== undefined && same(cookie, sessionValue(token));
}

/**
 * The request's URL and raw header pairs without the credential: the header, a Bearer of the token
 * and the session cookie dropped, the query parameter taken out of the URL (the rest of the query
 * left as it was sent).
 */
export function withoutCredential(url: string, rawHeaders: readonly string[], token: string): { url: string; rawHeaders: string[] } {
  const pairs: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    let value = rawHeaders[i + 1]!;
    if (name.toLowerCase() === TOKEN_HEADER) continue;
    if (name.toLowerCase() === 'authorization' && same(value, `Bearer ${token}`)) continue;
    if (name.toLowerCase() === 'cookie') {
      value = value
        .split(';')
        .filter((part) => part.split('=')[0]!.trim() !== SESSION_COOKIE)
        .join(';')
        .trim();
      if (value === '') continue;
    }
    pairs.push(name, value);
  }
  return { url: withoutParam(url), rawHeaders: pairs };
}

function withoutParam(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const hash = url.indexOf('#', question);
  const query = url.slice(question + 1, hash < 0 ? undefined : hash);
  const kept = query.split('&').filter((part) => part.split('=')[0] !== TOKEN_PARAM);
  if (kept.length === query.split('&').length) return url;
  return url.slice(0, question) + (kept.length > 0 ? `?${kept.join('&')}` : '') + (hash < 0 ? '' : url.slice(hash));
}

/** The login answer: the session cookie and a redirect to `next` (a path on this server only). */
export function loginAnswer(url: URL, token: string): { status: number; headers: Record<string, string>; body: string } {
  const next = url.searchParams.get('next') ?? '/';
  const target = next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
  return {
    status: 303,
    headers: {
      location: target,
      'set-cookie': `${SESSION_COOKIE}=${sessionValue(token)}; Path=/; HttpOnly; SameSite=Strict`,
      'content-type': 'text/plain;charset=UTF-8',
    },
    body: `Signed in; go on to ${target}`,
  };
}

/** The login URL serve writes (0600) into its data folder for the owner's browser. */
export function loginUrl(origin: string, token: string): string {
  return `${origin}${LOGIN_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}`;
}
