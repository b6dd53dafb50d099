/**
 * What an admin route is (docs/admin-api.md, "Adding a route"): its method, its path pattern with
 * named segments (`/__hookbench/instances/<namespace>/<name>`), who may call it, how its query and
 * body are written by a client and read by the server, and the type of its answer. The routes
 * themselves are the table in admin.ts; this module is the machinery both sides share, so a path
 * is built by the client and matched by the server from the same pattern, and an answer is typed
 * for the server's handler and read on arrival by the client with the same declaration.
 */
import type { Reader } from './shape';

/**
 * Who may call a route, besides the receiver's own checks that come first (docs/security.md: only
 * the user who runs serve, from this machine, from no foreign web page):
 * - `token`: the admin token, as `Authorization: Bearer …` (or `?token=` for the live WebSocket);
 * - `owner`: no admin token (the outbound sink: the worker's own `fetch` has none); under
 *   `serve --require-token` the owner's credential, as for any non-webhook route;
 * - `none`: no token of any kind, not even the one `--require-token` asks (the lock's proof: the
 *   serve or VS Code window that checks a lock has none, and only a reader of the lock's nonce can
 *   use the answer).
 */
export type AdminAuth = 'token' | 'owner' | 'none';

export type AdminMethod = 'GET' | 'POST' | 'DELETE';

/** A request a route refuses: answered `{"error": message}` with `status`. */
export class RouteError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A route's query string: what a client gives (`Given`) and what the server reads (`Parsed`). */
export interface QueryCodec<Given, Parsed> {
  /** The `name=value` pairs, in order; empty ones left out. */
  format(given: Given): [string, string][];
  /** The query as the route uses it; throws RouteError (400) for one it cannot use. */
  parse(search: URLSearchParams): Parsed;
}

/** A route's request body, written by a client and read by the server. */
export interface BodyCodec<Given, Parsed> {
  format(given: Given): string | Uint8Array;
  /** The body as the route uses it; throws RouteError (400) for one it cannot use. */
  parse(bytes: Uint8Array): Parsed;
}

/**
 * What a route answers with 200 (or sends, for a WebSocket): its type, which the server's handler
 * must answer, and its reader, which a client applies on arrival (a ShapeError for an answer of
 * another shape, as from a serve of another version).
 */
export interface Answers<A> {
  readonly read: Reader<A>;
}

/** Declares a route's answer: `answer: answers<InstanceDetails>(readInstanceDetails)`. */
export function answers<A>(read: Reader<A>): Answers<A> {
  return { read };
}

/** A route answered over HTTP: JSON with status 200, or `{"error"}` with another. */
export interface HttpRoute {
  readonly method: AdminMethod;
  readonly pattern: `/__hookbench/${string}`;
  readonly auth: AdminAuth;
  readonly query?: QueryCodec<never, unknown>;
  readonly body?: BodyCodec<never, unknown>;
  readonly answer: Answers<unknown>;
}

/** A WebSocket route: a GET upgrade, then JSON messages of one type. */
export interface SocketRoute {
  readonly kind: 'websocket';
  readonly pattern: `/__hookbench/${string}`;
  readonly auth: AdminAuth;
  readonly messages: Answers<unknown>;
}

export type AnyRoute = HttpRoute | SocketRoute;

type ParamNames<P extends string> = P extends `${string}<${infer Name}>${infer Rest}` ? Name | ParamNames<Rest> : never;

/** The named segments of a route's pattern, decoded: `{ namespace: string; name: string }`. */
export type RouteParams<R extends AnyRoute> = { readonly [K in ParamNames<R['pattern']>]: string };
/** What a route answers with 200. */
export type RouteAnswer<R extends HttpRoute> = R['answer'] extends Answers<infer A> ? A : never;
/** What a WebSocket route sends. */
export type RouteMessage<R extends SocketRoute> = R['messages'] extends Answers<infer M> ? M : never;
/** A route's query as a client gives it, and as the server reads it (undefined without one). */
export type GivenQuery<R extends HttpRoute> = R['query'] extends QueryCodec<infer G, unknown> ? G : undefined;
export type RouteQuery<R extends HttpRoute> = R['query'] extends QueryCodec<never, infer P> ? P : undefined;
/** A route's body as a client gives it, and as the server reads it (undefined without one). */
export type GivenBody<R extends HttpRoute> = R['body'] extends BodyCodec<infer G, unknown> ? G : undefined;
export type RouteBody<R extends HttpRoute> = R['body'] extends BodyCodec<never, infer P> ? P : undefined;

/** `METHOD /pattern`, as docs/admin-api.md names a route. */
export type RouteLabel<R extends HttpRoute> = `${R['method']} ${R['pattern']}`;

export function routeLabel<R extends HttpRoute>(route: R): RouteLabel<R> {
  return `${route.method} ${route.pattern}` as RouteLabel<R>;
}

/**
 * The path (and query string) of `route` with `params` filled in, each percent-encoded as one
 * segment, so a name holding `/` or `..` stays one segment.
 */
export function routePath<R extends AnyRoute>(route: R, params: RouteParams<R>, query?: R extends HttpRoute ? GivenQuery<R> : undefined): string {
  const path = route.pattern.replace(/<(\w+)>/g, (_, name: string) => encodeURIComponent((params as Record<string, string>)[name]!));
  const pairs = query === undefined || !('query' in route) || !route.query ? [] : (route.query as QueryCodec<unknown, unknown>).format(query);
  return pairs.length > 0 ? `${path}?${new URLSearchParams(pairs)}` : path;
}

/**
 * The named segments of `pathname` when it has the pattern's shape (literal segments compared as
 * they came, still percent-encoded), else undefined. A named segment may be empty: decoding says
 * it is missing, with a 404, as for a path that names nothing.
 */
export function matchPattern(pattern: string, pathname: string): Record<string, string> | undefined {
  const wanted = pattern.split('/');
  const given = pathname.split('/');
  if (wanted.length !== given.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < wanted.length; i++) {
    const named = /^<(\w+)>$/.exec(wanted[i]!);
    if (named) params[named[1]!] = given[i]!;
    else if (wanted[i] !== given[i]) return undefined;
  }
  return params;
}

/** The segments `matchPattern` found, percent-decoded: 404 when one is empty, 400 when not valid encoding. */
export function decodeParams<R extends AnyRoute>(route: R, raw: Record<string, string>): RouteParams<R> {
  const decoded: Record<string, string> = {};
  for (const [name, segment] of Object.entries(raw)) {
    if (segment === '') throw new RouteError(404, `missing <${name}> in ${route.pattern}`);
    try {
      decoded[name] = decodeURIComponent(segment);
    } catch {
      throw new RouteError(400, `<${name}> is not valid percent-encoding`);
    }
  }
  return decoded as RouteParams<R>;
}
