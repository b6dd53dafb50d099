// A fixture worker in the style of the agents examples: one agent that echoes what reached it,
// routed by routeAgentRequest with each of its options on a path prefix of its own.
import { Agent, routeAgentRequest } from 'agents';

interface Env {
  EchoAgent: DurableObjectNamespace;
}

export class EchoAgent extends Agent<Env> {
  startedWith: unknown = null;

  onStart(props?: unknown) {
    this.startedWith = props ?? null;
  }

  onRequest(request: Request) {
    const url = new URL(request.url);
    return Response.json({
      name: this.name,
      method: request.method,
      path: url.pathname,
      search: url.search,
      props: this.startedWith,
      lifecycleHeader: request.headers.get('x-agents-lifecycle-props'),
      stamped: request.headers.get('x-stamped'),
      body: request.method === 'POST' ? '(has body)' : null,
    });
  }
}

/** What each hook saw, answered instead of forwarding when the request asks for it. */
const guard = {
  onBeforeRequest(request: Request, route: unknown) {
    const url = new URL(request.url);
    if (url.searchParams.has('route')) return Response.json(route);
    if (request.headers.get('x-token') !== 'ok') return new Response('Unauthorized', { status: 401 });
    const stamped = new Request(request);
    stamped.headers.set('x-stamped', 'yes');
    return stamped;
  },
  onBeforeConnect(request: Request, route: unknown) {
    const url = new URL(request.url);
    if (url.searchParams.has('route')) return Response.json(route, { status: 418 });
    if (url.searchParams.get('token') !== 'ok') return new Response('Forbidden', { status: 403 });
    return undefined;
  },
};

export default {
  async fetch(request: Request, env: Env) {
    const url = new URL(request.url);
    const first = url.pathname.split('/')[1];
    let routed: Response | null | undefined;
    switch (first) {
      case 'open':
        routed = await routeAgentRequest(request, env, { prefix: 'open', cors: true });
        break;
      case 'custom':
        routed = await routeAgentRequest(request, env, {
          prefix: 'custom',
          cors: { 'Access-Control-Allow-Origin': 'https://dash.example', 'access-control-allow-credentials': 'true', 'X-Extra': 'one' },
        });
        break;
      case 'api':
        routed = await routeAgentRequest(request, env, { prefix: 'api/v1' });
        break;
      case 'props':
        routed = await routeAgentRequest(request, env, { prefix: 'props', props: { tenant: 'acme', plan: { seats: 3 }, tags: ['a', 'é'] } });
        break;
      case 'guarded':
        routed = await routeAgentRequest(request, env, { prefix: 'guarded', cors: true, ...guard });
        break;
      case 'plain':
        return new Response('plain route');
      default:
        routed = await routeAgentRequest(request, env);
    }
    if (routed === null) return new Response('no match (null)', { status: 404 });
    return routed ?? new Response('no match (undefined)', { status: 404 });
  },
};
