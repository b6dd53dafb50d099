// A fixture worker in the style of the agents examples: one agent that echoes what reached it,
// routed by routeAgentRequest with each of its options on its own path.
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
    });
  }
}

export default {
  async fetch(request: Request, env: Env) {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/plain/')) {
      return new Response('plain route');
    }
    return (await routeAgentRequest(request, env)) ?? new Response('Not found', { status: 404 });
  },
};
