// Generated hostile inputs against every surface that parses what strangers send: the receiver's
// HTTP surface (raw bytes on a socket), the signature header parsers, the admin API and the render
// request validator. No crash, no 5xx from Hookbench's own code, the right 4xx. Bounded here; the
// benchmarks run the same generators longer (HOOKBENCH_FUZZ_ITERATIONS, HOOKBENCH_FUZZ_SEED).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { RenderError } from '../../../src/core/browserRendering/errors';
import { ENDPOINTS, validateRenderRequest } from '../../../src/core/browserRendering/request';
import { PROVIDERS, schemeFor } from '../../../src/core/signing';
import { Hostile } from '../helpers/hostile';
import { serveDefaultWorker, type Served } from '../helpers/serveWorker';
import { githubPush, SECRETS } from '../workers/payloads';

const ITERATIONS = Number(process.env['HOOKBENCH_FUZZ_ITERATIONS'] ?? 300);
const SEED = Number(process.env['HOOKBENCH_FUZZ_SEED'] ?? Date.now() % 1_000_000);
const TOKEN = 'fuzz-admin-token';

let served: Served;
/** Failures nothing awaited: each is a request some code path forgot to answer. */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);
after(() => {
  process.off('unhandledRejection', onUnhandled);
  assert.deepEqual(
    unhandled.map((e) => (e as Error)?.stack ?? String(e)),
    [],
    'unhandled rejections',
  );
});
before(async () => {
  served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN, bodyLimit: 64 * 1024 });
});
after(() => served.stop());

/** Sends raw bytes and answers the status of the response, or 'closed' when the server hung up. */
function raw(port: number, bytes: Buffer): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let head = '';
    const done = (result: number | 'closed') => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(5000, () => done('closed'));
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (match) done(Number(match[1]));
    });
    socket.on('error', () => done('closed'));
    socket.on('close', () => done('closed'));
    socket.end(bytes);
  });
}

function hostileRequest(h: Hostile): { bytes: Buffer; path: string; method: string } {
  const method = h.pick(['POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'FOO', 'P OST']);
  const path = h.path([
    '/webhooks/',
    '/webhooks/github/',
    '/webhooks/stripe/',
    '/webhooks-queued/',
    '/agents/webhook-agent/',
    '/agents/',
    '/',
    '/__hookbench/',
    '/webhooks/twilio/',
  ]);
  const body = h.chance(0.5) ? Buffer.from(JSON.stringify(h.json())) : h.bytes(2048);
  const headers: string[] = [`Host: 127.0.0.1`];
  for (let i = 0, n = h.int(6); i < n; i++) {
    const name = h.pick([
      'X-Hub-Signature-256',
      'X-GitHub-Event',
      'X-GitHub-Delivery',
      'Stripe-Signature',
      'X-Twilio-Signature',
      'X-Slack-Signature',
      'X-Slack-Request-Timestamp',
      'X-Shopify-Hmac-Sha256',
      'webhook-signature',
      'webhook-id',
      'webhook-timestamp',
      'Content-Type',
      'X-Webhook-Mode',
      'X-Hookbench-Note',
      'Authorization',
      'Transfer-Encoding',
      'Expect',
    ]);
    headers.push(`${name}: ${h.headerValue()}`);
  }
  const framing = h.int(4);
  if (framing === 0) headers.push(`Content-Length: ${body.length}`);
  if (framing === 1) headers.push(`Content-Length: ${h.pick([0, body.length + 10, -1, 'abc', 1e12])}`);
  if (framing === 2) headers.push('Transfer-Encoding: chunked');
  const payload =
    framing === 2 ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from(h.chance(0.7) ? '\r\n0\r\n\r\n' : '\r\nzz\r\n')]) : body;
  const head = `${method} ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n${h.chance(0.9) ? 'Connection: close\r\n' : ''}\r\n`;
  return { bytes: Buffer.concat([Buffer.from(head, 'latin1'), payload]), path, method };
}

describe(`fuzz (seed ${SEED}, ${ITERATIONS} iterations each)`, () => {
  it('the receiver answers every hostile request with a 4xx (or a 2xx on /agents), never a 5xx, and keeps serving', async () => {
    const h = new Hostile(SEED);
    const port = Number(new URL(served.url).port);
    const statuses = new Map<number | 'closed', number>();
    for (let i = 0; i < ITERATIONS; i++) {
      const request = hostileRequest(h);
      const status = await raw(port, request.bytes);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 'closed') continue;
      assert.ok(status < 500, `seed ${SEED} #${i}: ${request.method} ${request.path} → ${status}`);
      if (status < 300)
        assert.ok(request.path.startsWith('/agents/') || request.method === 'OPTIONS', `seed ${SEED} #${i}: ${request.method} ${request.path} → ${status}`);
    }
    // Still serving, and correctly: a valid delivery is stored.
    const push = githubPush('Fuzz/After', `after-${SEED}`);
    const response = await fetch(`${served.url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers });
    assert.equal(response.status, 200);
    assert.ok(
      [...statuses.keys()].some((s) => s !== 'closed'),
      JSON.stringify([...statuses]),
    );
  });

  it('the signature parsers answer every hostile header with a typed failure, never a throw', () => {
    const h = new Hostile(SEED + 1);
    const reasons = new Set([
      'no_secret',
      'invalid_secret',
      'missing_header',
      'malformed_header',
      'missing_url',
      'stale',
      'too_new',
      'body_mismatch',
      'mismatch',
    ]);
    const names = [
      'x-hub-signature-256',
      'x-hub-signature',
      'stripe-signature',
      'x-twilio-signature',
      'x-slack-signature',
      'x-slack-request-timestamp',
      'x-shopify-hmac-sha256',
      'webhook-signature',
      'webhook-id',
      'webhook-timestamp',
      'svix-signature',
      'svix-id',
      'svix-timestamp',
      'x-signature',
    ];
    for (let i = 0; i < ITERATIONS * 5; i++) {
      const provider = h.pick(PROVIDERS);
      const headers: Record<string, string> = {};
      for (const name of names) if (h.chance(0.5)) headers[name] = h.chance(0.2) ? String(Math.floor(Date.now() / 1000)) : h.text();
      const secret = h.pick([undefined, '', h.text(), 'whsec_' + h.text(), 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
      const input = {
        secret,
        body: h.bytes(256),
        headers,
        ...(h.chance(0.5) ? { url: h.pick(['https://example.com/sms', h.text(), 'http://[::1', '']) } : {}),
      };
      const result = schemeFor(provider).verify(input);
      assert.equal(result.valid, false, `seed ${SEED + 1} #${i}`);
      if (!result.valid) assert.ok(reasons.has(result.reason), `seed ${SEED + 1} #${i}: ${result.reason}`);
    }
  });

  it('the admin API answers hostile paths, queries and SQL with 2xx or 4xx, never 5xx', async () => {
    const h = new Hostile(SEED + 2);
    const push = githubPush('Fuzz/Admin', `admin-${SEED}`);
    await fetch(`${served.url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers });
    for (let i = 0; i < ITERATIONS; i++) {
      const path = h.pick([
        `/__hookbench/${h.encode(h.text(2))}`,
        `/__hookbench/instances/${h.encode(h.text(2))}/${h.encode(h.text(2))}`,
        '/__hookbench/instances/webhook-agent/fuzz-admin/query',
        `/__hookbench/instances/webhook-agent/${h.encode(h.text())}/events`,
        `/__hookbench/deliveries?limit=${h.encode(h.text(1))}&after=${h.encode(h.text(1))}`,
        `/__hookbench/sink/${h.encode(h.text(2))}`,
      ]);
      const query = path.endsWith('/query');
      const method = query ? 'POST' : h.pick(['GET', 'GET', 'POST', 'DELETE', 'PUT']);
      const sql =
        h.pick([
          'SELECT ',
          'DROP TABLE events',
          'DELETE FROM events',
          'PRAGMA writable_schema=1',
          "ATTACH '/tmp/x' AS x",
          'select * from ',
          'INSERT INTO events(id) VALUES(1)',
          '',
        ]) + (h.chance(0.5) ? h.text() : '');
      const body = query
        ? JSON.stringify(h.chance(0.8) ? { sql, params: h.chance(0.5) ? h.json() : [] } : h.json())
        : method === 'GET' || method === 'DELETE'
          ? undefined
          : JSON.stringify(h.json());
      const response = await fetch(served.url + path, { method, body, headers: { authorization: `Bearer ${TOKEN}` } });
      const text = await response.text();
      assert.ok(response.status < 500, `seed ${SEED + 2} #${i}: ${method} ${path} ${body?.slice(0, 300) ?? ''} → ${response.status} ${text.slice(0, 300)}`);
    }
    // The instance's data is intact: hostile SQL only ever reads.
    const events = await fetch(`${served.url}/__hookbench/instances/webhook-agent/fuzz-admin/query`, {
      method: 'POST',
      body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM events' }),
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(events.status, 200);
    assert.deepEqual(await events.json(), { columns: ['n'], rows: [[1]] });
  });

  it('the render request validator accepts or refuses with a 400/404 naming the field, never another error', () => {
    const h = new Hostile(SEED + 3);
    for (let i = 0; i < ITERATIONS * 5; i++) {
      const endpoint = h.chance(0.9) ? h.pick(ENDPOINTS) : h.text(1);
      const body = h.chance(0.7)
        ? {
            ...(h.chance(0.5) ? { html: '<p>x</p>' } : { url: h.pick(['https://example.com', h.text(), 'file:///etc/passwd', 'javascript:alert(1)']) }),
            ...(h.json() as object),
          }
        : h.json();
      try {
        validateRenderRequest(endpoint, body);
      } catch (error) {
        assert.ok(error instanceof RenderError, `seed ${SEED + 3} #${i}: ${String(error)}`);
        assert.ok([400, 404].includes(error.status), `seed ${SEED + 3} #${i}: ${error.status}`);
        assert.ok(error.message.length > 0 && error.message.length < 2000);
      }
    }
  });
});
