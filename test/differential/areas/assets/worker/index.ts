// A worker in front of static assets: an API of its own, and env.ASSETS.fetch for the files.
interface Env {
  ASSETS: { fetch(input: Request | string): Promise<Response> };
}

export default {
  async fetch(request: Request, env: Env) {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/api/asset/')) {
      const inner = await env.ASSETS.fetch(new Request(new URL(url.pathname.slice('/api/asset'.length), url), request));
      return new Response(inner.body, { status: inner.status, headers: { 'x-inner-type': inner.headers.get('content-type') ?? 'none', 'x-inner-location': inner.headers.get('location') ?? 'none' } });
    }
    return Response.json({ from: 'worker', method: request.method, path: url.pathname });
  },
};
