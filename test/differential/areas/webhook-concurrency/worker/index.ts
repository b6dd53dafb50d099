/**
 * A payments ledger: POST /webhooks/<style>/<customer> with {"id", "amount"}, signed in
 * X-Signature (hex HMAC-SHA256 of the body with GENERIC_WEBHOOK_SECRET, checked with WebCrypto),
 * adds the amount to the customer's balance once per payment id; GET /ledger/<style>/<customer>
 * reads it. Each style
 * is a handler a user might write, differing only in what it awaits between reading the balance
 * and writing it back:
 *
 * - `sync`: nothing; read and write in one turn.
 * - `api`: an outside call (a timer stands in for the network): the input gate opens, so another
 *   delivery for the customer runs in between and one update is lost.
 * - `rate-first`: the same outside call, made before reading the balance (the fix).
 * - `storage`: a storage read: the input gate stays closed.
 * - `microtask`: an already-resolved promise: no turn of the event loop.
 * - `digest`: WebCrypto (a digest of the body).
 * - `guarded`: the `api` handler inside blockConcurrencyWhile.
 * - `sql`: the balance in a SQL table instead of the state, read and written around an outside call.
 */
import { Agent, getAgentByName, routeAgentRequest } from 'agents';

interface Env {
  LedgerAgent: DurableObjectNamespace<LedgerAgent>;
  GENERIC_WEBHOOK_SECRET: string;
}

interface Ledger {
  balance: number;
  payments: number;
}

type Style = 'sync' | 'api' | 'rate-first' | 'storage' | 'microtask' | 'digest' | 'guarded' | 'sql';

const STYLES: readonly Style[] = ['sync', 'api', 'rate-first', 'storage', 'microtask', 'digest', 'guarded', 'sql'];

/** An exchange-rate lookup: 20 ms of waiting on something that is not storage. */
const lookUpRate = () => new Promise<number>((resolve) => setTimeout(() => resolve(1), 20));

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

async function signed(request: Request, secret: string, body: string): Promise<boolean> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return request.headers.get('x-signature') === hex(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body)));
}

export class LedgerAgent extends Agent<Env, Ledger> {
  initialState: Ledger = { balance: 0, payments: 0 };

  onStart(): void {
    this.sql`CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY CHECK (id = 1), balance INTEGER NOT NULL, payments INTEGER NOT NULL)`;
    this.sql`INSERT OR IGNORE INTO ledger (id, balance, payments) VALUES (1, 0, 0)`;
    this.sql`CREATE TABLE IF NOT EXISTS seen (payment TEXT PRIMARY KEY)`;
  }

  /** True the first time a payment id is seen: a redelivery is not counted again. */
  private firstTime(payment: string): boolean {
    if (this.sql`SELECT 1 FROM seen WHERE payment = ${payment}`.length > 0) return false;
    this.sql`INSERT INTO seen (payment) VALUES (${payment})`;
    return true;
  }

  async onRequest(request: Request): Promise<Response> {
    const style = new URL(request.url).pathname.split('/')[2] as Style;
    if (request.method === 'GET') return Response.json(style === 'sql' ? this.sql`SELECT balance, payments FROM ledger`[0] : this.state);
    const body = await request.text();
    if (!(await signed(request, this.env.GENERIC_WEBHOOK_SECRET, body))) return new Response('Invalid signature', { status: 401 });
    const { id, amount } = JSON.parse(body) as { id: string; amount: number };
    if (!this.firstTime(id)) return new Response('OK');
    if (style === 'sql') {
      const [{ balance, payments }] = this.sql<Ledger>`SELECT balance, payments FROM ledger`;
      const rate = await lookUpRate();
      this.sql`UPDATE ledger SET balance = ${balance + amount * rate}, payments = ${payments + 1}`;
      return new Response('OK');
    }
    if (style === 'rate-first') {
      const rate = await lookUpRate();
      await this.apply(amount * rate, undefined);
      return new Response('OK');
    }
    if (style === 'guarded') {
      await this.ctx.blockConcurrencyWhile(() => this.apply(amount, lookUpRate));
      return new Response('OK');
    }
    const waits: Record<Exclude<Style, 'sql' | 'guarded' | 'rate-first'>, (() => Promise<number>) | undefined> = {
      sync: undefined,
      api: lookUpRate,
      storage: async () => ((await this.ctx.storage.get<number>('rate')) ?? 1),
      microtask: () => Promise.resolve(1),
      digest: async () => ((await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body))).byteLength > 0 ? 1 : 0),
    };
    await this.apply(amount, waits[style]);
    return new Response('OK');
  }

  private async apply(amount: number, between: (() => Promise<number>) | undefined): Promise<void> {
    const { balance, payments } = this.state;
    const rate = between ? await between() : 1;
    this.setState({ balance: balance + amount * rate, payments: payments + 1 });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const [, root, style, customer] = new URL(request.url).pathname.split('/');
    if ((root === 'webhooks' || root === 'ledger') && STYLES.includes(style as Style) && customer) {
      const agent = await getAgentByName(env.LedgerAgent, `${style}-${customer}`);
      return agent.fetch(request);
    }
    return (await routeAgentRequest(request, env)) ?? new Response('Not found', { status: 404 });
  },
};
