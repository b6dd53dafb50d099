/**
 * A billing worker: one CustomerAgent per customer. Billing webhooks (POST /billing/<customer>,
 * HMAC-SHA256 of the raw body, hex, in X-Billing-Signature) are verified with
 * crypto.subtle.timingSafeEqual and update the agent's state; the customer's dashboard connects
 * to /agents/customer-agent/<customer> and is welcomed with the state; a daily digest runs from a
 * cron schedule set in onStart. A plain Durable Object, SupportDesk, greets each visitor on an
 * accept()ed WebSocket before answering the upgrade and says goodbye with its own close code.
 */
import { Agent, getAgentByName, routeAgentRequest, type Connection, type ConnectionContext } from 'agents';
import { DurableObject } from 'cloudflare:workers';

interface Env {
  CustomerAgent: DurableObjectNamespace<CustomerAgent>;
  SupportDesk: DurableObjectNamespace<SupportDesk>;
  BILLING_SECRET: string;
}

interface CustomerState {
  plan: string;
  invoices: number;
  lastEvent: string | null;
}

const encoder = new TextEncoder();

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(Math.floor(hex.length / 2));
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

async function verify(secret: string, body: ArrayBuffer, signature: string): Promise<boolean> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = await crypto.subtle.sign('HMAC', key, body);
  return crypto.subtle.timingSafeEqual(expected, fromHex(signature));
}

export class CustomerAgent extends Agent<Env, CustomerState> {
  initialState: CustomerState = { plan: 'free', invoices: 0, lastEvent: null };

  async onStart(): Promise<void> {
    this.sql`CREATE TABLE IF NOT EXISTS digests (n INTEGER)`;
    this.sql`CREATE TABLE IF NOT EXISTS starts (n INTEGER)`;
    this.sql`INSERT INTO starts (n) VALUES (1)`;
    await this.schedule('0 9 * * *', 'dailyDigest', { report: 'invoices' });
  }

  async dailyDigest(payload: { report: string }): Promise<void> {
    this.sql`INSERT INTO digests (n) VALUES (${payload.report.length})`;
  }

  onConnect(connection: Connection, _ctx: ConnectionContext): void {
    connection.send(JSON.stringify({ type: 'welcome', customer: this.name, state: this.state }));
  }

  onMessage(connection: Connection, message: string | ArrayBuffer): void {
    if (message === 'plan') connection.send(JSON.stringify({ type: 'plan', plan: this.state.plan }));
    else if (message === 'leave') connection.close(4000, 'customer left');
  }

  onClose(connection: Connection, code: number, _reason: string, _wasClean: boolean): void {
    connection.close(1001, `agent closed after ${code}`);
  }

  async onRequest(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.endsWith('/schedules')) {
      const schedules = this.getSchedules().map(({ type, callback, payload, ...rest }) => ({ type, callback, payload, cron: (rest as { cron?: string }).cron }));
      const starts = this.sql<{ n: number }>`SELECT count(*) AS n FROM starts`[0]!.n;
      return Response.json({ schedules, starts });
    }
    if (url.pathname.endsWith('/migrate')) {
      // A failed data migration resets the object: the next request starts it again (onStart).
      try {
        await this.ctx.blockConcurrencyWhile(async () => {
          throw new Error('migration 7 failed');
        });
      } catch {
        // never resumes: the object is reset
      }
      return new Response('unreachable');
    }
    const signature = request.headers.get('x-billing-signature') ?? '';
    const body = await request.arrayBuffer();
    let valid: boolean;
    try {
      valid = await verify(this.env.BILLING_SECRET, body, signature);
    } catch (error) {
      return new Response(`Bad signature: ${(error as Error).name}: ${(error as Error).message}`, { status: 400 });
    }
    if (!valid) return new Response('Invalid signature', { status: 401 });
    const event = JSON.parse(new TextDecoder().decode(body)) as { type: string; plan?: string };
    this.setState({
      plan: event.plan ?? this.state.plan,
      invoices: this.state.invoices + (event.type === 'invoice.paid' ? 1 : 0),
      lastEvent: event.type,
    });
    return Response.json({ received: event.type, state: this.state });
  }
}

export class SupportDesk extends DurableObject<Env> {
  async fetch(request: Request): Promise<Response> {
    const visitor = new URL(request.url).searchParams.get('visitor') ?? 'guest';
    const [client, server] = Object.values(new WebSocketPair());
    server.accept();
    server.send(JSON.stringify({ type: 'hello', visitor, queue: 3 }));
    server.addEventListener('message', (event) => {
      if (event.data === 'help') server.send('a human will be with you shortly');
    });
    server.addEventListener('close', (event) => {
      server.close(1001, `desk closed after ${event.code}`);
    });
    return new Response(null, { status: 101, webSocket: client });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const [, section, customer, action] = url.pathname.split('/');
    if (section === 'billing' && customer) {
      if (request.method !== 'POST' && !action) return new Response('Method not allowed', { status: 405 });
      const agent = await getAgentByName(env.CustomerAgent, customer);
      return agent.fetch(request);
    }
    if (section === 'support' && customer) return env.SupportDesk.get(env.SupportDesk.idFromName(customer)).fetch(request);
    return (await routeAgentRequest(request, env)) ?? new Response('Not found', { status: 404 });
  },
} satisfies ExportedHandler<Env>;
