// A room that accepts hibernatable WebSockets with tags and answers commands sent as frames:
// `echo:<x>`, `tags`, `count[:<tag>]`, `attach:<json>`, `attachment`, `close:<code>:<reason>`,
// `stats`. HTTP routes set the auto-response, try the API's limits and read what the close
// handler recorded.
import { DurableObject } from 'cloudflare:workers';

interface Env {
  ROOM: DurableObjectNamespace<Room>;
}

function failure(error: unknown): { name: string; message: string } {
  const e = error as Error;
  return { name: e?.name ?? 'Error', message: e?.message ?? String(error) };
}

export class Room extends DurableObject<Env> {
  /** Client ends of pairs this object made itself (kept so they stay open). */
  private readonly local: WebSocket[] = [];

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.headers.get('upgrade') !== 'websocket') return new Response('expected an upgrade', { status: 426 });
    const tags = (url.searchParams.get('tags') ?? '').split(',').filter(Boolean);
    const pair = new WebSocketPair();
    try {
      this.ctx.acceptWebSocket(pair[1], tags);
    } catch (error) {
      return Response.json(failure(error), { status: 400 });
    }
    if (url.searchParams.has('attach')) pair[1].serializeAttachment({ joined: url.searchParams.get('attach') });
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const messages = ((await this.ctx.storage.get<number>('messages')) ?? 0) + 1;
    await this.ctx.storage.put('messages', messages);
    if (typeof message !== 'string') {
      ws.send(`binary:${message.byteLength}`);
      return;
    }
    const [command, ...rest] = message.split(':');
    const arg = rest.join(':');
    try {
      if (command === 'echo') ws.send(`echo:${arg}`);
      else if (command === 'tags') ws.send(JSON.stringify(this.ctx.getTags(ws)));
      else if (command === 'count') ws.send(String(this.ctx.getWebSockets(arg || undefined).length));
      else if (command === 'attach') {
        ws.serializeAttachment(JSON.parse(arg));
        ws.send('attached');
      } else if (command === 'attachment') ws.send(JSON.stringify(ws.deserializeAttachment()));
      else if (command === 'big') ws.serializeAttachment('x'.repeat(Number(arg)));
      else if (command === 'close') {
        const [code, reason] = arg.split(':');
        ws.close(Number(code), reason ?? '');
      } else if (command === 'stats') ws.send(JSON.stringify({ messages, sockets: this.ctx.getWebSockets().length, auto: this.ctx.getWebSocketAutoResponseTimestamp(ws) !== null }));
      else ws.send(`unknown:${message}`);
    } catch (error) {
      ws.send(JSON.stringify(failure(error)));
    }
  }

  async webSocketClose(ws: WebSocket, code: number, reason: string, wasClean: boolean): Promise<void> {
    const closes = (await this.ctx.storage.get<unknown[]>('closes')) ?? [];
    closes.push({ code, reason, wasClean, tags: this.ctx.getTags(ws), attachment: ws.deserializeAttachment() });
    await this.ctx.storage.put('closes', closes);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, 'bye');
    } catch {
      // already closed
    }
  }

  async webSocketError(ws: WebSocket, error: unknown): Promise<void> {
    const errors = (await this.ctx.storage.get<unknown[]>('errors')) ?? [];
    errors.push({ ...failure(error), isError: error instanceof Error, tags: this.ctx.getTags(ws), attachment: ws.deserializeAttachment(), readyState: ws.readyState });
    await this.ctx.storage.put('errors', errors);
  }

  async errors(): Promise<unknown> {
    return (await this.ctx.storage.get('errors')) ?? [];
  }

  async closes(): Promise<unknown> {
    return (await this.ctx.storage.get('closes')) ?? [];
  }

  setAuto(request: string | null, response: string): unknown {
    try {
      if (request === null) this.ctx.setWebSocketAutoResponse();
      else this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(request, response));
      const pair = this.ctx.getWebSocketAutoResponse();
      return { ok: true, pair: pair ? { request: pair.request, response: pair.response } : null };
    } catch (error) {
      return failure(error);
    }
  }

  /** Pairs made here, their server ends accepted with tags; the client ends stay in this object. */
  localSockets(count: number, tags: string[]): unknown {
    for (let i = 0; i < count; i++) {
      const pair = new WebSocketPair();
      this.ctx.acceptWebSocket(pair[1], tags);
      pair[0].accept();
      this.local.push(pair[0]);
    }
    const counts: Record<string, number> = { all: this.ctx.getWebSockets().length };
    for (const tag of tags) counts[tag] = this.ctx.getWebSockets(tag).length;
    counts['none-such'] = this.ctx.getWebSockets('none-such').length;
    return counts;
  }

  /** The API's refusals, each as { name, message }. */
  limits(): unknown {
    const attempt = (fn: () => void) => {
      try {
        fn();
        return 'ok';
      } catch (error) {
        return failure(error);
      }
    };
    const fresh = () => new WebSocketPair()[1];
    const accepted = () => {
      const ws = fresh();
      ws.accept();
      return ws;
    };
    return {
      elevenTags: attempt(() => this.ctx.acceptWebSocket(fresh(), Array.from({ length: 11 }, (_, i) => `t${i}`))),
      tenTags: attempt(() => this.ctx.acceptWebSocket(fresh(), Array.from({ length: 10 }, (_, i) => `t${i}`))),
      longTag: attempt(() => this.ctx.acceptWebSocket(fresh(), ['x'.repeat(257)])),
      tagAtLimit: attempt(() => this.ctx.acceptWebSocket(fresh(), ['y'.repeat(256)])),
      afterAccept: attempt(() => this.ctx.acceptWebSocket(accepted(), [])),
      acceptAfterAcceptWebSocket: attempt(() => {
        const ws = fresh();
        this.ctx.acceptWebSocket(ws, []);
        ws.accept();
      }),
      getTagsOfPlain: attempt(() => this.ctx.getTags(accepted())),
      bigAttachment: attempt(() => fresh().serializeAttachment('x'.repeat(17_000))),
      smallAttachment: attempt(() => fresh().serializeAttachment({ a: 1 })),
      unsetAttachment: fresh().deserializeAttachment(),
      bigAutoRequest: attempt(() => this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('p'.repeat(2049), 'q'))),
      bigAutoResponse: attempt(() => this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('p', 'q'.repeat(2049)))),
    };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const [, action, name = 'one'] = url.pathname.split('/');
    const stub = env.ROOM.getByName(name);
    if (action === 'ws') return stub.fetch(request);
    if (action === 'closes') return Response.json(await stub.closes());
    if (action === 'errors') return Response.json(await stub.errors());
    if (action === 'auto') return Response.json(await stub.setAuto(url.searchParams.get('request'), url.searchParams.get('response') ?? ''));
    if (action === 'local') return Response.json(await stub.localSockets(Number(url.searchParams.get('n') ?? 1), (url.searchParams.get('tags') ?? '').split(',').filter(Boolean)));
    if (action === 'limits') return Response.json(await stub.limits());
    return new Response('Not found', { status: 404 });
  },
};
