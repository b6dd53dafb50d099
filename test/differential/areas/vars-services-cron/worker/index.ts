// Answers what the worker sees: /vars (vars and .dev.vars), /self (a service binding to its own
// default export), /rpc/<case> (RPC on the WorkerEntrypoint "Api" through a service binding), and
// /scheduled-log (what scheduled() recorded in KV; /__scheduled?cron=… runs it under --test-scheduled).
import { WorkerEntrypoint } from 'cloudflare:workers';

interface Env {
  GREETING: string;
  CONFIG: { nested: { list: unknown[] }; flag: boolean };
  NUMBER: number;
  LIST: string[];
  OVERRIDDEN: string;
  SECRET: string;
  LOG: KVNamespace;
  SELF: Fetcher;
  API: Fetcher & { add(a: number, b: number): Promise<number>; greet(name: string): Promise<string>; shape(): Promise<unknown>; fail(): Promise<never>; missing(): Promise<unknown>; slow(ms: number): Promise<string> };
}

export class Api extends WorkerEntrypoint<Env> {
  add(a: number, b: number): number {
    return a + b;
  }

  async greet(name: string): Promise<string> {
    return `${this.env.GREETING}, ${name}`;
  }

  shape(): unknown {
    return { when: new Date(Date.UTC(2026, 0, 2)), map: new Map([['k', 1]]), bytes: new Uint8Array([1, 2]), nested: { list: [1, undefined, null] } };
  }

  fail(): never {
    throw new RangeError('the entrypoint refused');
  }

  async fetch(request: Request): Promise<Response> {
    return new Response(`Api.fetch ${request.method} ${new URL(request.url).pathname}`, { headers: { 'x-from': 'Api' } });
  }
}

const describe = (value: unknown): unknown => {
  if (value instanceof Date) return { date: value.toISOString() };
  if (value instanceof Map) return { map: [...value] };
  if (value instanceof Uint8Array) return { u8: [...value] };
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? { undefined: true } : describe(v)));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, describe(v)]));
  return value;
};

async function rpc(env: Env, which: string): Promise<unknown> {
  switch (which) {
    case 'add':
      return env.API.add(2, 3);
    case 'greet':
      return env.API.greet('webhook');
    case 'shape':
      return describe(await env.API.shape());
    case 'fail':
      return env.API.fail();
    case 'missing':
      return env.API.missing();
    case 'default-method':
      return (env.SELF as unknown as { add(a: number, b: number): Promise<number> }).add(1, 2);
    case 'fetch': {
      const response = await env.API.fetch('https://api.internal/path?q=1', { method: 'POST', body: 'x' });
      return { status: response.status, from: response.headers.get('x-from'), text: await response.text() };
    }
    default:
      return { unknown: which };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    switch (url.pathname) {
      case '/vars':
        return Response.json({
          GREETING: env.GREETING,
          CONFIG: env.CONFIG,
          configType: typeof env.CONFIG,
          flagType: typeof env.CONFIG.flag,
          NUMBER: env.NUMBER,
          numberType: typeof env.NUMBER,
          LIST: env.LIST,
          isArray: Array.isArray(env.LIST),
          OVERRIDDEN: env.OVERRIDDEN,
          SECRET: env.SECRET,
        });
      case '/env-keys':
        return Response.json(Object.keys(env).sort());
      case '/self': {
        const response = await env.SELF.fetch('https://self.internal/hello?from=self', { headers: { 'x-probe': '1' } });
        return Response.json({ status: response.status, text: await response.text() });
      }
      case '/hello':
        return new Response(`default fetch ${url.pathname}${url.search} probe=${request.headers.get('x-probe')}`);
      case '/scheduled-log': {
        const listed = await env.LOG.list({ prefix: 'cron:' });
        return Response.json(await Promise.all(listed.keys.map(async ({ name }) => [name, JSON.parse((await env.LOG.get(name)) ?? 'null')])));
      }
      default:
        if (url.pathname.startsWith('/rpc/')) {
          try {
            return Response.json({ result: await rpc(env, url.pathname.slice(5)) });
          } catch (error) {
            return Response.json({ error: (error as Error).message, name: (error as Error).name });
          }
        }
        return new Response('not found', { status: 404 });
    }
  },

  async scheduled(controller: ScheduledController, env: Env): Promise<void> {
    const record = {
      cron: controller.cron,
      scheduledTimeType: typeof controller.scheduledTime,
      type: controller.type,
      noRetry: typeof controller.noRetry,
    };
    await env.LOG.put(`cron:${controller.cron}:${controller.scheduledTime}`, JSON.stringify(record));
    if (controller.cron === 'fail') throw new Error('scheduled failed');
  },
};
