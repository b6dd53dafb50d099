// A local stand-in for smee.io, written from its protocol (docs/expose.md, "smee.io's protocol"):
// GET /new → 307 to a new channel; GET /<channel> with Accept exactly text/event-stream → an event
// stream that starts `id: 0, event: ready` and numbers every event per connection from 0 (ids
// restart on each connection); POST /<channel> (application/json only) → 200 with an empty body,
// subscribed or not, and `{ ...headers, body: <parsed>, query, timestamp }` to every subscriber.
// No history, no Last-Event-ID. Tests can drop every stream, refuse subscriptions for a while
// (smee.io down), stall streams (no pings), and send pings.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

interface Stream {
  readonly channel: string;
  readonly res: http.ServerResponse;
  nextId: number;
}

export class SmeeRelay {
  private readonly server: http.Server;
  private readonly streams = new Set<Stream>();
  private waiters: (() => void)[] = [];
  private refusing = false;
  /** Every Accept header a GET of a channel came with. */
  readonly accepts: string[] = [];
  /** Subscriptions opened, over the relay's life. */
  subscriptions = 0;
  /** Deliveries posted, and how many subscribers each reached. */
  readonly posted: { channel: string; reached: number }[] = [];
  url = '';

  private constructor() {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  static async start(): Promise<SmeeRelay> {
    const relay = new SmeeRelay();
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    relay.url = `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}`;
    return relay;
  }

  channel(name = randomBytes(12).toString('base64url')): string {
    return `${this.url}/${name}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const name = url.pathname.slice(1);
    if ((req.method === 'GET' || req.method === 'HEAD') && name === 'new') {
      res.writeHead(307, { location: `${this.url}/${randomBytes(12).toString('base64url')}` }).end();
      return;
    }
    if (!/^[a-zA-Z0-9_-]{1,128}$/.test(name)) {
      res.writeHead(404).end();
      return;
    }
    if (req.method === 'GET') return this.subscribe(name, req, res);
    if (req.method === 'POST') return this.post(name, url, req, res);
    res.writeHead(404).end();
  }

  private subscribe(channel: string, req: http.IncomingMessage, res: http.ServerResponse): void {
    this.accepts.push(req.headers.accept ?? '');
    if (req.headers.accept !== 'text/event-stream') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>smee.io channel page</html>');
      return;
    }
    if (this.refusing) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-no-compression': '1' });
    const stream: Stream = { channel, res, nextId: 0 };
    this.streams.add(stream);
    this.subscriptions++;
    req.socket.setTimeout(0);
    res.on('close', () => this.streams.delete(stream));
    this.write(stream, 'ready', '{}');
    for (const wake of this.waiters.splice(0)) wake();
  }

  private post(channel: string, url: URL, req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const query: Record<string, string | string[]> = {};
      for (const [key, value] of url.searchParams) {
        const had = query[key];
        query[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
      }
      const data = JSON.stringify({ ...req.headers, body, query, timestamp: Date.now() });
      let reached = 0;
      for (const stream of this.streams) {
        if (stream.channel !== channel) continue;
        this.write(stream, undefined, data);
        reached++;
      }
      this.posted.push({ channel, reached });
      res.writeHead(200).end();
    });
  }

  private write(stream: Stream, event: string | undefined, data: string): void {
    stream.res.write(`id: ${stream.nextId++}\n${event ? `event: ${event}\n` : ''}data: ${data}\n\n`);
  }

  /** The keep-alive smee.io writes every 30 s, now. */
  ping(): void {
    for (const stream of this.streams) this.write(stream, 'ping', '{}');
  }

  /** Ends every open stream, as a restart or a network blip would. */
  drop(): number {
    const count = this.streams.size;
    for (const stream of [...this.streams]) stream.res.socket?.destroy();
    this.streams.clear();
    return count;
  }

  /** While true, subscriptions are answered 503 (smee.io down). */
  refuse(on: boolean): void {
    this.refusing = on;
  }

  get subscribers(): number {
    return this.streams.size;
  }

  /** Resolves once `count` subscriptions have been opened in total. */
  async subscribed(count: number, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.subscriptions < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} subscriptions, got ${this.subscriptions}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** POSTs a body to a channel as the provider would (its raw bytes, its headers). */
export async function postToChannel(channel: string, body: string | Buffer, headers: Record<string, string>): Promise<number> {
  const response = await fetch(channel, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  await response.arrayBuffer();
  return response.status;
}
