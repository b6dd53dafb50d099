// POST /kv {op, args}: calls env.KV[op](...args) and answers what came back as JSON, or the error.
interface Env {
  KV: Record<string, (...args: unknown[]) => Promise<unknown>>;
}

async function plain(value: unknown): Promise<unknown> {
  if (value instanceof Map) return { map: await Promise.all([...value].map(async ([k, v]) => [k, await plain(v)])) };
  if (value instanceof ArrayBuffer) return { arrayBuffer: new TextDecoder().decode(value) };
  if (value instanceof ReadableStream) return { stream: await new Response(value).text() };
  if (value && typeof value === 'object' && 'value' in value) return { ...value, value: await plain((value as { value: unknown }).value) };
  return value === undefined ? { undefined: true } : value;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { op, args } = (await request.json()) as { op: string; args: unknown[] };
    try {
      return Response.json({ result: await plain(await env.KV[op]!(...args)) });
    } catch (error) {
      return Response.json({ error: (error as Error).message, name: (error as Error).name });
    }
  },
};
