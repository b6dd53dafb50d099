/**
 * `routeAgentRequest` and `getAgentByName` of the SDK (agents 0.32.0, `agent-routing.ts`):
 * `/<prefix, default "agents", may have several parts>/<kebab binding>/<name>[/…]` with empty
 * segments skipped, unknown namespace → 400 `Invalid request`, no name → `null` (the worker's own
 * 404), names never URL-decoded; `cors` answers OPTIONS itself and stamps its headers on every
 * HTTP answer (the hooks' refusals too, never an upgrade); `props` travel to `onStart` in the
 * `x-agents-lifecycle-props` header (docs/agents-sdk.md, "Routing").
 */
import { type DurableObjectNamespace, type Stub } from '../objects/namespace';
import { camelCaseToKebabCase } from '../../core/contract/agentsProtocol';
import { LIFECYCLE_PROPS_HEADER, encodeLifecycleProps } from '../../core/contract/lifecycleProps';
import { delay, realTimers, type Timers } from '../../core/timers';

/** What the hooks are told about the route: the binding's key in `env` and the instance name. */
export interface AgentRoute {
  readonly className: string;
  readonly name: string;
}

type Hook = (request: Request, route: AgentRoute) => Response | Request | void | undefined | Promise<Response | Request | void | undefined>;

export interface RoutingRetryOptions {
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly onRetry?: (info: {
    error: unknown;
    attempt: number;
    maxAttempts: number;
    delayMs: number;
    name: string;
    className?: string;
  }) => void | Promise<void>;
}

export interface RouteOptions {
  readonly prefix?: string;
  readonly cors?: boolean | Record<string, string> | [string, string][] | Headers;
  readonly props?: unknown;
  readonly onBeforeRequest?: Hook;
  readonly onBeforeConnect?: Hook;
  readonly routingRetry?: RoutingRetryOptions | false;
  readonly jurisdiction?: string;
  readonly locationHint?: string;
}

/** The SDK's `cors: true` headers, exactly. */
const DEFAULT_CORS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': '*',
  'Access-Control-Max-Age': '86400',
};

function corsHeaders(cors: RouteOptions['cors']): Record<string, string> | null {
  if (cors === true) return { ...DEFAULT_CORS };
  if (!cors || typeof cors !== 'object') return null;
  const record: Record<string, string> = {};
  new Headers(cors).forEach((value, key) => (record[key] = value));
  return record;
}

type NamespaceLike = Pick<DurableObjectNamespace, 'idFromName' | 'get'> & { jurisdiction?: (name: string) => NamespaceLike };

/** The SDK takes every env value with an `idFromName` function for a namespace, keyed by its kebab-cased key. */
function namespaces(env: unknown): Map<string, { key: string; namespace: NamespaceLike }> {
  const out = new Map<string, { key: string; namespace: NamespaceLike }>();
  for (const [key, value] of Object.entries((env ?? {}) as Record<string, unknown>)) {
    if (value && typeof value === 'object' && typeof (value as { idFromName?: unknown }).idFromName === 'function') {
      out.set(camelCaseToKebabCase(key), { key, namespace: value as NamespaceLike });
    }
  }
  return out;
}

function retryOptions(
  options: RoutingRetryOptions | false | undefined,
): (Required<Omit<RoutingRetryOptions, 'onRetry'>> & Pick<RoutingRetryOptions, 'onRetry'>) | null {
  if (options === false) return null;
  const resolved = {
    maxAttempts: options?.maxAttempts ?? 3,
    baseDelayMs: options?.baseDelayMs ?? 100,
    maxDelayMs: options?.maxDelayMs ?? 800,
    onRetry: options?.onRetry,
  };
  const positiveInteger = (value: number, name: string) => {
    if (!Number.isFinite(value) || value < 1) throw new Error(`${name} must be >= 1`);
    if (!Number.isInteger(value)) throw new Error(`${name} must be an integer`);
  };
  const positive = (value: number, name: string) => {
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be > 0`);
  };
  positiveInteger(resolved.maxAttempts, 'routingRetry.maxAttempts');
  positive(resolved.baseDelayMs, 'routingRetry.baseDelayMs');
  positive(resolved.maxDelayMs, 'routingRetry.maxDelayMs');
  if (resolved.baseDelayMs > resolved.maxDelayMs) throw new Error('routingRetry.baseDelayMs must be <= maxDelayMs');
  return resolved;
}

/**
 * The timers a retry waits on: the runtime's, from a namespace it made (DurableObjectNamespace's
 * `timers`), or real ones for any other object the worker put in `env` with an `idFromName`.
 */
function timersOf(namespace: unknown): Timers {
  const timers = (namespace as { timers?: Partial<Timers> } | null)?.timers;
  return typeof timers?.after === 'function' && typeof timers.now === 'function' ? (timers as Timers) : realTimers;
}

/**
 * Retries what a Durable Object refused as `retryable` (and not `overloaded`), with jittered
 * backoff, as the SDK does; the backoff waits on the timers of `namespace`.
 */
async function withRetry<T>(
  operation: () => Promise<T>,
  context: { name: string; className?: string },
  options: RoutingRetryOptions | false | undefined,
  namespace: unknown,
): Promise<T> {
  const resolved = retryOptions(options);
  if (!resolved) return operation();
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      const typed = error as { retryable?: unknown; overloaded?: unknown } | null;
      const retryable = typeof typed === 'object' && typed !== null && typed.retryable === true && typed.overloaded !== true;
      if (attempt + 1 > resolved.maxAttempts || !retryable) throw error;
      const delayMs = Math.floor(Math.random() * Math.min(resolved.maxDelayMs, resolved.baseDelayMs * 2 ** (attempt - 1)));
      try {
        await resolved.onRetry?.({ error, attempt, maxAttempts: resolved.maxAttempts, delayMs, ...context });
      } catch (callbackError) {
        console.warn('Durable Object routing retry callback failed:', callbackError);
      }
      await delay(timersOf(namespace), delayMs);
    }
  }
}

export async function routeAgentRequest(request: Request, env: unknown, options: RouteOptions = {}): Promise<Response | null> {
  const known = namespaces(env);
  const prefixParts = (options.prefix || 'agents').split('/');
  const parts = new URL(request.url).pathname.split('/').filter(Boolean);
  if (!prefixParts.every((part, i) => parts[i] === part) || parts.length < prefixParts.length + 2) return null;
  const namespaceName = parts[prefixParts.length]!;
  const name = parts[prefixParts.length + 1]!;
  const bound = known.get(namespaceName);
  if (!bound) {
    console.error(`The URL ${request.url} with namespace "${namespaceName}" and name "${name}" does not match any Durable Object binding.`);
    return new Response('Invalid request', { status: 400 });
  }
  const cors = corsHeaders(options.cors);
  const isWebSocket = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
  const withCors = (response: Response): Response => {
    if (!cors || isWebSocket) return response;
    const next = new Response(response.body, response);
    for (const [key, value] of Object.entries(cors)) next.headers.set(key, value);
    return next;
  };
  if (request.method === 'OPTIONS' && cors) return new Response(null, { headers: cors });
  const namespace = options.jurisdiction && bound.namespace.jurisdiction ? bound.namespace.jurisdiction(options.jurisdiction) : bound.namespace;
  const route: AgentRoute = { className: bound.key, name };
  let forwarded = new Request(request);
  const outcome = await (isWebSocket ? options.onBeforeConnect : options.onBeforeRequest)?.(forwarded, route);
  if (outcome instanceof Request) forwarded = new Request(outcome);
  else if (outcome instanceof Response) return isWebSocket ? outcome : withCors(outcome);
  if (options.props !== undefined) forwarded.headers.set(LIFECYCLE_PROPS_HEADER, encodeLifecycleProps(options.props));
  const stub = namespace.get(namespace.idFromName(name));
  const response = await withRetry(() => stub.fetch(forwarded.clone()), route, options.routingRetry, namespace);
  return withCors(response);
}

/** The stub of the named instance, once its `onStart` has run (with `options.props` on a first start). */
export async function getAgentByName(
  namespace: DurableObjectNamespace,
  name: string,
  options?: { props?: unknown; jurisdiction?: string; routingRetry?: RoutingRetryOptions | false },
): Promise<Stub> {
  if (!namespace || typeof (namespace as { host?: unknown }).host !== 'function')
    throw new TypeError('getAgentByName: the first argument must be a Durable Object namespace binding');
  await withRetry(() => namespace.host(name).ensureStarted(options?.props), { name }, options?.routingRetry, namespace);
  return namespace.getByName(name);
}
