/**
 * The admin API's dispatch from the contract's route table (src/core/contract/admin.ts; adding a
 * route: docs/admin-api.md). A request is taken in a fixed order, each failure with its status:
 * path and auth (401, 403: before anything about the routes is told, unless the path's routes ask
 * no token), method (405 with Allow), path segments (404 missing, 400 not valid encoding), query
 * and body (400), then the route's handler, whose answer is the route's 200.
 */
import type * as http from 'node:http';
import { adminRoutesAt, type AdminApiTable, type AdminHttpRouteName } from '../../core/contract/admin';
import {
  decodeParams,
  RouteError,
  type AdminMethod,
  type HttpRoute,
  type RouteAnswer,
  type RouteBody,
  type RouteParams,
  type RouteQuery,
} from '../../core/contract/adminRoute';

/** What a handler is given: the route's segments, query and body as the contract reads them. */
export interface RouteInput<R extends HttpRoute> {
  readonly params: RouteParams<R>;
  readonly query: RouteQuery<R>;
  readonly body: RouteBody<R>;
  /** The request itself, for what a route keeps beyond these (the sink keeps the raw headers). */
  readonly req: http.IncomingMessage;
}

export type RouteHandler<R extends HttpRoute> = (input: RouteInput<R>) => RouteAnswer<R> | Promise<RouteAnswer<R>>;

/** A handler for every HTTP route of the table, each typed by its own route: a wrong answer does not compile. */
export type AdminHandlers = { readonly [K in AdminHttpRouteName]: RouteHandler<AdminApiTable[K]> };

const METHOD_ORDER: readonly AdminMethod[] = ['GET', 'POST', 'DELETE'];

/** 405: the path is a route's, the method none of its routes'. */
export class MethodNotAllowed extends RouteError {
  constructor(readonly allow: readonly AdminMethod[]) {
    super(405, allow.join(' or '));
  }
}

/**
 * The answer of the route `req` asks for. `authorize` throws the 401 or 403 of a request without
 * the admin token; it is asked first for every route that needs it, for an unknown path, and for
 * a wrong method on a path one of whose routes needs it.
 */
export async function dispatch(handlers: AdminHandlers, req: http.IncomingMessage, url: URL, body: Uint8Array, authorize: () => void): Promise<unknown> {
  const routes = adminRoutesAt(url.pathname).filter((match): match is typeof match & { name: AdminHttpRouteName; route: HttpRoute } => 'method' in match.route);
  const match = routes.find(({ route }) => route.method === req.method);
  const needsToken = match ? match.route.auth === 'token' : routes.length === 0 || routes.some(({ route }) => route.auth === 'token');
  if (needsToken) authorize();
  if (!match) {
    if (routes.length === 0) throw new RouteError(404, `no admin route ${url.pathname}`);
    throw new MethodNotAllowed(METHOD_ORDER.filter((method) => routes.some(({ route }) => route.method === method)));
  }
  const { route } = match;
  const input = { params: decodeParams(route, match.segments), query: route.query?.parse(url.searchParams), body: route.body?.parse(body), req };
  // The one place a route's name meets its handler: the mapped type made each handler fit its own route.
  const handler = handlers[match.name] as unknown as (input: unknown) => unknown;
  return await handler(input);
}
