/**
 * A webhook dashboard worker in the style of the cloudflare/agents examples: POST /hooks/<source>
 * (HMAC-SHA256 of the raw body in X-Feed-Signature, checked with WebCrypto) lands in one FeedAgent
 * per source, which stores the event in SQL and broadcasts its state; the dashboard reads the
 * events through callables. LobbyAgent greets and relays messages for clients that present the
 * token, from any origin (CORS).
 */
import { Agent, callable, getAgentByName, routeAgentRequest, type Connection, type ConnectionContext } from 'agents';

interface Env {
  FeedAgent: DurableObjectNamespace<FeedAgent>;
  LobbyAgent: DurableObjectNamespace<LobbyAgent>;
  FEED_SECRET?: string;
}

export interface FeedState {
  source: string;
  lastEventType: string | null;
  lastEventAt: string | null;
  stats: { total: number; byType: Record<string, number> };
}

interface EventRow {
  id: string;
  type: string;
  action: string | null;
  title: string;
  timestamp: string;
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

async function signatureOf(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return `sha256=${hex(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body)))}`;
}

export class FeedAgent extends Agent<Env, FeedState> {
  initialState: FeedState = { source: '', lastEventType: null, lastEventAt: null, stats: { total: 0, byType: {} } };

  onStart(): void {
    this.sql`CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, type TEXT NOT NULL, action TEXT, title TEXT NOT NULL, timestamp TEXT NOT NULL)`;
  }

  async onRequest(request: Request): Promise<Response> {
    if (request.method !== 'POST') return new Response('Method not allowed', { status: 405 });
    const kind = request.headers.get('x-feed-kind');
    if (!kind) return new Response('Missing X-Feed-Kind header', { status: 400 });
    const body = await request.text();
    if (this.env.FEED_SECRET && request.headers.get('x-feed-signature') !== (await signatureOf(this.env.FEED_SECRET, body))) {
      return new Response('Invalid signature', { status: 401 });
    }
    let payload: { id?: string; source?: string; action?: string; title?: string; at?: string };
    try {
      payload = JSON.parse(body) as typeof payload;
    } catch {
      return new Response('Invalid JSON', { status: 400 });
    }
    // Times come from the payload so both runtimes store the same rows.
    const at = payload.at ?? '2026-01-01T00:00:00.000Z';
    const id = payload.id ?? `${kind}-${this.state.stats.total + 1}`;
    this.sql`INSERT OR REPLACE INTO events (id, type, action, title, timestamp) VALUES (${id}, ${kind}, ${payload.action ?? null}, ${payload.title ?? kind}, ${at})`;
    this.sql`DELETE FROM events WHERE id NOT IN (SELECT id FROM events ORDER BY timestamp DESC LIMIT 50)`;
    const byType = { ...this.state.stats.byType, [kind]: (this.state.stats.byType[kind] ?? 0) + 1 };
    this.setState({ source: payload.source ?? this.state.source, lastEventType: kind, lastEventAt: at, stats: { total: this.state.stats.total + 1, byType } });
    return new Response('OK');
  }

  @callable()
  getEvents(limit = 20): EventRow[] {
    return [...this.sql<EventRow>`SELECT id, type, action, title, timestamp FROM events ORDER BY timestamp DESC, id DESC LIMIT ${limit}`];
  }

  @callable()
  getStats(): FeedState['stats'] {
    return this.state.stats;
  }

  @callable()
  clearEvents(): number {
    const before = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM events`[0]?.n ?? 0;
    this.sql`DELETE FROM events`;
    this.setState({ ...this.state, stats: { total: 0, byType: {} } });
    return before;
  }
}

export class LobbyAgent extends Agent<Env> {
  onConnect(connection: Connection, ctx: ConnectionContext): void {
    const user = new URL(ctx.request.url).searchParams.get('user') ?? 'someone';
    connection.send(`welcome ${user}`);
  }

  onMessage(connection: Connection, message: string | ArrayBuffer | ArrayBufferView): void {
    connection.send(`echo ${String(message)}`);
    for (const other of this.getConnections()) if (other.id !== connection.id) other.send(`relay ${String(message)}`);
  }

  onRequest(request: Request): Response {
    return new Response(`lobby ${request.method}`);
  }
}

/** Only the lobby asks for a token, in the query or as a Bearer header; feeds are open to the dashboard. */
function guard(request: Request): Request | Response {
  const url = new URL(request.url);
  if (!url.pathname.startsWith('/agents/lobby-agent/')) return request;
  const token = url.searchParams.get('token') ?? request.headers.get('authorization')?.replace(/^Bearer /, '');
  return token === 'lobby-token' ? request : new Response('Unauthorized', { status: 401 });
}

/** A source name as an agent name: lower case, `/` as `-`, nothing else but [a-z0-9-]. */
const agentName = (source: string) => source.toLowerCase().replace(/\//g, '-').replace(/[^a-z0-9-]/g, '');

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/hooks/') && request.method === 'POST') {
      const source = decodeURIComponent(url.pathname.slice('/hooks/'.length));
      if (!source) return new Response('Missing source', { status: 400 });
      const agent = await getAgentByName(env.FeedAgent, agentName(source));
      return agent.fetch(request);
    }
    if (url.pathname === '/api/agent-name') {
      const source = url.searchParams.get('source');
      if (!source) return new Response('Missing source parameter', { status: 400 });
      return Response.json({ agentName: agentName(source) });
    }
    return (await routeAgentRequest(request, env, { cors: true, onBeforeConnect: guard, onBeforeRequest: guard })) ?? new Response('Not found', { status: 404 });
  },
} satisfies ExportedHandler<Env>;
