// POST /d1 {kind, sql, params, ...}: runs it on env.DB and answers the result as JSON, or the error.
interface Call {
  kind: 'all' | 'first' | 'raw' | 'run' | 'batch' | 'exec';
  sql: string;
  params?: unknown[];
  column?: string;
  columnNames?: boolean;
  batch?: { sql: string; params?: unknown[] }[];
  blob?: boolean;
  undefinedParam?: boolean;
}

export default {
  async fetch(request: Request, env: { DB: D1Database }): Promise<Response> {
    const call = (await request.json()) as Call;
    try {
      let params: unknown[] = call.params ?? [];
      if (call.blob) params = [...params, new Uint8Array([1, 2, 255]).buffer];
      if (call.undefinedParam) params = [...params, undefined];
      const statement = () => env.DB.prepare(call.sql).bind(...params);
      let result: unknown;
      if (call.kind === 'exec') result = await env.DB.exec(call.sql);
      else if (call.kind === 'batch') result = await env.DB.batch(call.batch!.map((s) => env.DB.prepare(s.sql).bind(...(s.params ?? []))));
      else if (call.kind === 'first') result = call.column === undefined ? await statement().first() : await statement().first(call.column);
      else if (call.kind === 'raw') result = await statement().raw({ columnNames: call.columnNames ?? false });
      else result = await statement()[call.kind]();
      return Response.json({ result });
    } catch (error) {
      return Response.json({ error: (error as Error).message, cause: ((error as Error).cause as Error | undefined)?.message });
    }
  },
};
