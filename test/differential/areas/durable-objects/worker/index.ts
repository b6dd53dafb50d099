// A plain Durable Object: ctx.storage.sql with its cursor, transactionSync rollback, the KV API,
// RPC through a stub, ids from names and strings.
import { DurableObject } from 'cloudflare:workers';

interface Env {
  COUNTER: DurableObjectNamespace<Counter>;
}

export class Counter extends DurableObject<Env> {
  /** Memory of this instance: lost when the object is reset. */
  private memory: string | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS hits (id INTEGER PRIMARY KEY, label TEXT)');
    // An object whose start-up migration fails: every request sees the failure.
    if (ctx.id.name?.startsWith('broken')) void ctx.blockConcurrencyWhile(async () => {
      throw new Error('migration failed');
    });
  }

  /** `blockConcurrencyWhile` returning a value, or throwing after a write (caught or not). */
  async blocked(mode: string): Promise<unknown> {
    if (mode === 'ok') {
      this.memory = 'kept';
      return { value: await this.ctx.blockConcurrencyWhile(async () => 42), memory: this.memory };
    }
    const run = this.ctx.blockConcurrencyWhile(async () => {
      await this.ctx.storage.put('doomed', 1);
      this.ctx.storage.sql.exec('INSERT INTO hits (label) VALUES (?)', 'doomed-bcw');
      throw new TypeError(`callback failed (${mode})`);
    });
    if (mode === 'caught') {
      try {
        await run;
      } catch (error) {
        return { caught: (error as Error).message };
      }
      return 'resolved';
    }
    await run;
    return 'resolved';
  }

  async after(): Promise<unknown> {
    return {
      memory: this.memory,
      doomed: (await this.ctx.storage.get('doomed')) ?? null,
      rows: this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM hits WHERE label = 'doomed-bcw'").one().n,
    };
  }

  add(label: string): { rowsWritten: number; count: number } {
    const cursor = this.ctx.storage.sql.exec('INSERT INTO hits (label) VALUES (?)', label);
    cursor.toArray();
    return { rowsWritten: cursor.rowsWritten, count: this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM hits').one().n };
  }

  rollback(): string {
    try {
      this.ctx.storage.transactionSync(() => {
        this.ctx.storage.sql.exec('INSERT INTO hits (label) VALUES (?)', 'doomed');
        throw new Error('undo');
      });
    } catch (error) {
      return `${(error as Error).message}:${this.ctx.storage.sql.exec('SELECT COUNT(*) AS n FROM hits WHERE label = ?', 'doomed').one().n}`;
    }
    return 'not rolled back';
  }

  async kv(): Promise<unknown> {
    await this.ctx.storage.put('b', 2);
    await this.ctx.storage.put({ a: 1, c: { deep: [1, 2] } });
    const listed = [...(await this.ctx.storage.list({ prefix: '' })).entries()];
    const deleted = await this.ctx.storage.delete(['a', 'missing']);
    return { get: await this.ctx.storage.get('c'), listed, deleted, after: [...(await this.ctx.storage.list()).keys()] };
  }

  async fetch(request: Request): Promise<Response> {
    const cursor = this.ctx.storage.sql.exec('SELECT id, label FROM hits ORDER BY id');
    return Response.json({ columns: cursor.columnNames, raw: [...cursor.raw()], name: this.ctx.id.name ?? null, path: new URL(request.url).pathname });
  }

  errors(): string[] {
    const out: string[] = [];
    try {
      this.ctx.storage.sql.exec('SELECT * FROM nowhere');
    } catch (error) {
      out.push((error as Error).message);
    }
    try {
      this.ctx.storage.sql.exec('SELECT 1 WHERE 0').one();
    } catch (error) {
      out.push((error as Error).message);
    }
    return out;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const [, action, name = 'one'] = url.pathname.split('/');
    const stub = env.COUNTER.getByName(name);
    switch (action) {
      case 'add':
        return Response.json(await stub.add(url.searchParams.get('label') ?? 'x'));
      case 'rollback':
        return new Response(await stub.rollback());
      case 'kv':
        return Response.json(await stub.kv());
      case 'errors':
        return Response.json(await stub.errors());
      case 'missing':
        try {
          await (stub as unknown as { nothing(): Promise<void> }).nothing();
          return new Response('called');
        } catch (error) {
          return new Response(`${(error as Error).name}: ${(error as Error).message}`, { status: 500 });
        }
      case 'by-string': {
        const id = env.COUNTER.idFromString(env.COUNTER.idFromName(name).toString());
        return env.COUNTER.get(id).fetch(request);
      }
      case 'bad-id':
        try {
          env.COUNTER.idFromString('nothex');
          return new Response('accepted');
        } catch (error) {
          return new Response(`${(error as Error).name}: ${(error as Error).message}`, { status: 400 });
        }
      case 'read':
        return stub.fetch(request);
      case 'bcw':
        try {
          return Response.json(await stub.blocked(url.searchParams.get('mode') ?? 'ok'));
        } catch (error) {
          return Response.json({ name: (error as Error).name, message: (error as Error).message }, { status: 500 });
        }
      case 'after':
        try {
          return Response.json(await stub.after());
        } catch (error) {
          return Response.json({ name: (error as Error).name, message: (error as Error).message }, { status: 500 });
        }
      default:
        return new Response('Not found', { status: 404 });
    }
  },
};
