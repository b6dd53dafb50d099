/**
 * `routeAgentRequest` and `getAgentByName` of the SDK: `/<prefix>/<kebab binding>/<name>[/…]`,
 * unknown namespace → 400 `Invalid request`, no name → nothing (the worker's own 404), names never
 * URL-decoded (research/agents-sdk.md, "Routing facts").
 */
import { DurableObjectNamespace, type Stub } from './namespace';
import { camelCaseToKebabCase } from './protocol';

export interface RouteOptions {
  readonly prefix?: string;
  readonly cors?: boolean | Record<string, string>;
  readonly onBeforeRequest?: (request: Request, lobby: { party: string; name: string }) => Response | Request | void | Promise<Response | Request | void>;
  readonly onBeforeConnect?: (request: Request, lobby: { party: string; name: string }) => Response | Request | void | Promise<Response | Request | void>;
}

function namespaces(env: unknown): Map<string, DurableObjectNamespace> {
  const out = new Map<string, DurableObjectNamespace>();
  for (const [key, value] of Object.entries((env ?? {}) as Record<string, unknown>)) {
    if (value instanceof DurableObjectNamespace) out.set(camelCaseToKebabCase(key), value);
  }
  return out;
}

export async function routeAgentRequest(request: Request, env: unknown, options: RouteOptions = {}): Promise<Response | undefined> {
  const prefix = options.prefix ?? 'agents';
  const segments = new URL(request.url).pathname.split('/');
  // ['', prefix, namespace, name, ...rest]
  if (segments[1] !== prefix || !segments[2]) return undefined;
  const name = segments[3];
  if (!name) return undefined;
  const namespace = namespaces(env).get(segments[2]);
  if (!namespace) return new Response('Invalid request', { status: 400 });
  const isUpgrade = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
  const hook = isUpgrade ? options.onBeforeConnect : options.onBeforeRequest;
  let forwarded = request;
  if (hook) {
    const outcome = await hook(request, { party: segments[2], name });
    if (outcome instanceof Response) return outcome;
    if (outcome instanceof Request) forwarded = outcome;
  }
  const stub = namespace.getByName(name);
  return stub.fetch(forwarded);
}

/** The stub of the named instance, once its `onStart` has run. */
export async function getAgentByName(namespace: DurableObjectNamespace, name: string, _options?: unknown): Promise<Stub> {
  if (!(namespace instanceof DurableObjectNamespace)) throw new TypeError('getAgentByName: the first argument must be a Durable Object namespace binding');
  await namespace.host(name).ensureStarted();
  return namespace.getByName(name);
}
