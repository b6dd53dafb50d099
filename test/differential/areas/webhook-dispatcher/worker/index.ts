// A webhook dispatcher as a Workers project writes one: see wrangler.jsonc.
import { EmailMessage } from 'cloudflare:email';

interface Env {
  ASSETS: Fetcher;
  DB: D1Database;
  PER_SENDER: { limit(options: { key: string }): Promise<{ success: boolean }> };
  DELIVERIES: { writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void };
  ALERTS: { send(message: unknown): Promise<{ messageId: string }> };
  ALERT_OVER: number;
}

const SCHEMA = 'CREATE TABLE IF NOT EXISTS deliveries (id INTEGER PRIMARY KEY, sender TEXT NOT NULL, kind TEXT NOT NULL, amount INTEGER NOT NULL CHECK (amount >= 0), replays INTEGER NOT NULL DEFAULT 0)';

async function verified(request: Request, body: string): Promise<boolean> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(process.env.HOOK_SECRET ?? ''), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body)));
  const expected = 'sha256=' + [...mac].map((b) => b.toString(16).padStart(2, '0')).join('');
  return request.headers.get('x-signature') === expected;
}

async function alert(env: Env, sender: string, amount: number, raw: boolean): Promise<string> {
  const to = (JSON.parse(process.env.ROUTES ?? '{}') as Record<string, string[]>)['billing']?.[0] ?? 'nobody@example.com';
  if (!raw) {
    const sent = await env.ALERTS.send({ from: 'dispatcher@example.com', to, subject: `Large delivery from ${sender}`, text: `${sender} sent ${amount}` });
    return sent.messageId;
  }
  const mime = [`From: Dispatcher <dispatcher@example.com>`, `To: ${to}`, `Subject: Large delivery from ${sender}`, `Message-ID: <${sender}-${amount}@example.com>`, '', `${sender} sent ${amount}`, ''].join('\r\n');
  const sent = await env.ALERTS.send(new EmailMessage('dispatcher@example.com', to, mime));
  return sent.messageId;
}

async function deliver(request: Request, env: Env, sender: string): Promise<Response> {
  const body = await request.text();
  if (!(await verified(request, body))) return new Response('bad signature', { status: 401 });
  const { success } = await env.PER_SENDER.limit({ key: sender });
  if (!success) return new Response(`rate limited: ${sender}`, { status: 429, headers: { 'retry-after': '60' } });
  const event = JSON.parse(body) as { kind: string; amount: number };
  try {
    const { meta } = await env.DB.prepare('INSERT INTO deliveries (sender, kind, amount) VALUES (?, ?, ?)').bind(sender, event.kind, event.amount).run();
    env.DELIVERIES.writeDataPoint({ blobs: [sender, event.kind], doubles: [event.amount], indexes: [sender] });
    const alerted = event.amount > env.ALERT_OVER ? await alert(env, sender, event.amount, request.headers.get('x-alert-format') === 'mime') : null;
    return Response.json({ id: meta.last_row_id, changes: meta.changes, alerted });
  } catch (error) {
    return Response.json({ error: (error as Error).message }, { status: 422 });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const parts = url.pathname.split('/').filter(Boolean);
    if (url.pathname === '/api/setup') {
      await env.DB.exec(SCHEMA);
      return new Response('ready');
    }
    if (parts[0] === 'hooks' && parts.length === 2 && request.method === 'POST') return deliver(request, env, parts[1]!);
    if (parts[0] === 'hooks' && parts[2] === 'replay' && request.method === 'POST') {
      const { meta } = await env.DB.prepare('UPDATE deliveries SET replays = replays + 1 WHERE id = ?').bind(Number(parts[3])).run();
      return Response.json({ changes: meta.changes, last_row_id: meta.last_row_id });
    }
    if (url.pathname === '/api/import' && request.method === 'POST') {
      // A backlog from another bin, all or nothing.
      const rows = (await request.json()) as { sender: string; kind: string; amount: number }[];
      try {
        const results = await env.DB.batch(rows.map((row) => env.DB.prepare('INSERT INTO deliveries (sender, kind, amount) VALUES (?, ?, ?)').bind(row.sender, row.kind, row.amount)));
        return Response.json(results.map((result) => result.meta.last_row_id));
      } catch (error) {
        return Response.json({ error: (error as Error).message }, { status: 422 });
      }
    }
    if (url.pathname === '/api/deliveries') {
      const { results } = await env.DB.prepare('SELECT sender, kind, amount, replays FROM deliveries ORDER BY id').all();
      return Response.json(results);
    }
    if (url.pathname === '/api/report') {
      // The dashboard's ad-hoc report: a column to group by, or a saved query.
      const sql = url.searchParams.get('sql') ?? `SELECT ${url.searchParams.get('by') ?? 'sender'}, count(*) AS n FROM deliveries GROUP BY 1`;
      try {
        return Response.json((await env.DB.prepare(sql).all()).results);
      } catch (error) {
        return Response.json({ error: (error as Error).message, cause: ((error as Error).cause as Error | undefined)?.message ?? null }, { status: 400 });
      }
    }
    if (url.pathname === '/api/whoami') {
      return Response.json({
        env: process.env,
        userAgent: navigator.userAgent,
        cf: request.cf,
        ip: request.headers.get('cf-connecting-ip'),
        acceptEncoding: request.headers.get('accept-encoding'),
      });
    }
    if (parts[0] === 'api' && parts[1] === 'docs' && parts[2]) {
      // The docs through the binding, as the dashboard embeds them.
      const page = await env.ASSETS.fetch(`${url.origin}/docs/${parts[2]}.html`);
      return new Response(page.body, { status: page.status, headers: { 'content-type': page.headers.get('content-type') ?? 'none', 'x-redirected': String(page.redirected), 'x-final-path': new URL(page.url).pathname } });
    }
    if (url.pathname === '/api/crash') {
      const rows = (await env.DB.prepare('SELECT * FROM deliveries WHERE sender = ?').bind('nobody').all()).results;
      return Response.json(rows[0]!.sender.toUpperCase());
    }
    return new Response('not found', { status: 404 });
  },
};
