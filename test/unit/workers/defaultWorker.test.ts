// The built-in webhook worker end to end: signed deliveries in over HTTP, events and state out
// over the agents protocol, every row of the seed's error table, dedup, retention, queueing.
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FrameClient, serveDefaultWorker, type Served } from '../helpers/serveWorker';
import { githubPush, SECRETS, shopifyOrder, signed, slackMention, standardEvent, stripeInvoice, twilioSms, type Delivery } from './payloads';

let served: Served;
before(async () => {
  served = await serveDefaultWorker({ secrets: SECRETS, bodyLimit: 64 * 1024 });
});
after(() => served.stop());

async function post(urlPath: string, delivery: Delivery, extra: Record<string, string> = {}) {
  const response = await fetch(served.url + urlPath, { method: 'POST', body: delivery.body, headers: { ...delivery.headers, ...extra } });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Calls a callable over the agents WebSocket protocol, as a client would. */
async function rpc(entity: string, method: string, args: unknown[]): Promise<unknown> {
  const client = new FrameClient(`${served.url}/agents/webhook-agent/${entity}`);
  await client.waitForFrames(3);
  client.send(JSON.stringify({ type: 'rpc', id: 'q', method, args }));
  await client.waitForFrames(4);
  const reply = JSON.parse(client.frames[3]!) as { result: unknown; success: boolean; error?: string };
  await client.close();
  if (!reply.success) throw new Error(reply.error);
  return reply.result;
}

describe("the seed's error table", () => {
  it('200 OK for a verified, processed delivery', async () => {
    const { status, text, headers } = await post('/webhooks/github/acme-widgets', githubPush());
    assert.deepEqual([status, text], [200, 'OK']);
    assert.match(headers.get('content-type') ?? '', /^text\/plain/);
  });

  it('400 Missing repository when the payload has no repository', async () => {
    const delivery = signed('github', '{"zen":"no repo here"}', { 'x-github-event': 'ping', 'x-github-delivery': 'p1', 'content-type': 'application/json' });
    assert.deepEqual(await post('/webhooks/github', delivery).then((r) => [r.status, r.text]), [400, 'Missing repository']);
  });

  it('400 Missing <field> for the other providers', async () => {
    assert.deepEqual(await post('/webhooks/stripe', stripeInvoice(null)).then((r) => [r.status, r.text]), [400, 'Missing customer']);
  });

  it('400 Invalid for a payload that does not parse', async () => {
    const delivery = signed('github', '{"broken": ', { 'x-github-event': 'push', 'x-github-delivery': 'b1' });
    assert.deepEqual(await post('/webhooks/github/acme', delivery).then((r) => [r.status, r.text]), [400, 'Invalid']);
    assert.deepEqual(await post('/webhooks/github', delivery).then((r) => [r.status, r.text]), [400, 'Invalid']);
  });

  it('401 Invalid signature when the signature is wrong or missing, logged as a security event without the secret', async () => {
    const delivery = githubPush();
    const unsigned = Object.fromEntries(Object.entries(delivery.headers).filter(([name]) => !name.toLowerCase().startsWith('x-hub-signature')));
    const wrong = await post('/webhooks/github/acme', { ...delivery, headers: { ...unsigned, 'x-hub-signature-256': 'sha256=' + '0'.repeat(64) } });
    assert.deepEqual([wrong.status, wrong.text], [401, 'Invalid signature']);
    const missing = await post('/webhooks/github/acme', { ...delivery, headers: unsigned });
    assert.deepEqual([missing.status, missing.text], [401, 'Invalid signature']);
    const noProvider = await post('/webhooks/acme', { body: '{}', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([noProvider.status, noProvider.text], [401, 'Invalid signature']);
    const security = served.logs.filter((l) => l.includes('[security]'));
    assert.ok(security.some((l) => /rejected a github webhook for acme: mismatch/.test(l)));
    assert.ok(security.some((l) => /missing_header/.test(l)));
    assert.ok(served.logs.every((l) => !l.includes(SECRETS.GITHUB_WEBHOOK_SECRET)));
  });

  it('a rejected request (401, 400, 405) creates no instance: nothing in the namespace, nothing on disk', async () => {
    const instances = () => served.server.worker.runtime().then((runtime) => runtime.namespaces.flatMap((n) => n.instanceNames()));
    const delivery = githubPush('Acme/Rejected', 'rejected-1');
    const forged = signed(
      'github',
      delivery.body,
      { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'rejected-2' },
      undefined,
      'forged',
    );
    const broken = signed('github', '{"broken": ', { 'x-github-event': 'push', 'x-github-delivery': 'rejected-3' });
    const answers = [
      (await post('/webhooks/github/never-forged', forged)).status,
      (await post('/webhooks/github', forged)).status,
      (await post('/webhooks/never-unsigned', { body: '{}', headers: { 'content-type': 'application/json' } })).status,
      (await post('/webhooks/github/never-broken', broken)).status,
      (await fetch(`${served.url}/webhooks/github/never-get`)).status,
    ];
    assert.deepEqual(answers, [401, 401, 401, 400, 405]);
    const names = await instances();
    for (const name of ['never-forged', 'acme-rejected', 'never-unsigned', 'never-broken', 'never-get'])
      assert.ok(!names.includes(name), `${name} was created`);
    const onDisk = fs.readdirSync(served.dataDir, { recursive: true, encoding: 'utf8' });
    assert.ok(!onDisk.some((f) => f.includes('never-') || f.includes('acme-rejected')), JSON.stringify(onDisk));
  });

  it('one entity, one agent: a percent-encoded path and the payload route reach the same GitHub agent, lower-cased', async () => {
    const instances = () => served.server.worker.runtime().then((runtime) => runtime.namespaces.flatMap((n) => n.instanceNames()));
    assert.equal((await post('/webhooks/github/Acme%2FOneAgent', githubPush('Acme/OneAgent', 'one-1'))).status, 200);
    assert.equal((await post('/webhooks/github', githubPush('acme/oneagent', 'one-2'))).status, 200);
    assert.equal((await post('/webhooks/acme%2Foneagent', githubPush('Acme/OneAgent', 'one-3'))).status, 200);
    const names = (await instances()).filter((n) => /oneagent/i.test(n));
    assert.deepEqual(names, ['acme-oneagent']);
    assert.equal(((await rpc('acme-oneagent', 'getEvents', [10])) as unknown[]).length, 3);
  });

  it('keeps the case of Stripe customer ids everywhere: cus_AbC and cus_abc are two customers', async () => {
    const instances = () => served.server.worker.runtime().then((runtime) => runtime.namespaces.flatMap((n) => n.instanceNames()));
    assert.equal((await post('/webhooks/stripe', stripeInvoice('cus_AbC'))).status, 200);
    assert.equal((await post('/webhooks/stripe/cus_AbC', stripeInvoice('cus_AbC'))).status, 200);
    assert.equal((await post('/webhooks/stripe', stripeInvoice('cus_abc'))).status, 200);
    const names = (await instances()).filter((n) => /^cus_abc$/i.test(n)).sort();
    assert.deepEqual(names, ['cus_AbC', 'cus_abc']);
    assert.equal(((await rpc('cus_AbC', 'getEvents', [10])) as unknown[]).length, 2);
  });

  it('404 Not found for anything that is not a route', async () => {
    for (const urlPath of ['/', '/hooks/github', '/webhooks', '/webhooks/gitlab/x', '/webhooks/github/a/b']) {
      assert.deepEqual(await post(urlPath, githubPush()).then((r) => [r.status, r.text]), [404, 'Not found'], urlPath);
    }
  });

  it('405 Method not allowed for anything but POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await fetch(`${served.url}/webhooks/github/acme`, { method });
      assert.deepEqual([response.status, await response.text()], [405, 'Method not allowed'], method);
    }
  });

  it('202 Accepted on the queued routes, then processed by the queue', async () => {
    const first = githubPush('Acme/Queued', 'queued-1');
    assert.deepEqual(await post('/webhooks-queued/github/queued', first).then((r) => [r.status, r.text]), [202, 'Accepted']);
    const second = githubPush('Acme/Queued', 'queued-2');
    assert.deepEqual(await post('/webhooks/github/queued', second, { 'x-webhook-mode': 'queued' }).then((r) => [r.status, r.text]), [202, 'Accepted']);
    const deadline = Date.now() + 5000;
    let events: { id: string }[] = [];
    while (events.length < 2 && Date.now() < deadline) events = (await rpc('queued', 'getEvents', [])) as { id: string }[];
    assert.deepEqual(events.map((e) => e.id).sort(), ['queued-1', 'queued-2']);
    const invalid = signed('github', 'nope', { 'x-github-event': 'push', 'x-github-delivery': 'q3' });
    assert.deepEqual(await post('/webhooks-queued/github/queued', invalid).then((r) => [r.status, r.text]), [400, 'Invalid']);
  });
});

describe('routes', () => {
  it('takes the entity from the path, from the payload (sanitized), or detects the provider from the header', async () => {
    assert.equal((await post('/webhooks/github/Path-Entity', githubPush('Acme/Path', 'r1'))).status, 200);
    assert.equal((await post('/webhooks/github', githubPush('Acme/From-Payload', 'r2'))).status, 200);
    assert.equal((await post('/webhooks/detected-entity', githubPush('Acme/Detected', 'r3'))).status, 200);
    // GitHub names ignore case: the path's Path-Entity is the payload route's path-entity.
    assert.deepEqual(
      ((await rpc('path-entity', 'getEvents', [])) as { id: string }[]).map((e) => e.id),
      ['r1'],
    );
    assert.deepEqual(
      ((await rpc('acme-from-payload', 'getEvents', [])) as { id: string }[]).map((e) => e.id),
      ['r2'],
    );
    assert.deepEqual(
      ((await rpc('detected-entity', 'getEvents', [])) as { id: string }[]).map((e) => e.id),
      ['r3'],
    );
  });

  it('keeps hostile entity names inside the data folder', async () => {
    for (const entity of ['..%2F..%2Fetc', encodeURIComponent('a/b'), 'x'.repeat(300), encodeURIComponent('名前')]) {
      assert.equal((await post(`/webhooks/github/${entity}`, githubPush())).status, 200, entity);
    }
    assert.equal((await post('/webhooks/github', githubPush('../../Escape/Attempt'))).status, 200);
    const root = path.join(served.dataDir, 'nwebhook-agent');
    for (const dir of fs.readdirSync(root)) assert.match(dir, /^[a-z0-9_~-]+$/);
    assert.equal(fs.existsSync(path.join(served.dataDir, '..', 'etc')), false);
  });
});

describe('each provider end to end', () => {
  const cases: [string, string, () => Delivery, string, string][] = [
    ['github', '/webhooks/github', () => githubPush('Octo/Repo'), 'octo-repo', 'push'],
    ['stripe', '/webhooks/stripe', () => stripeInvoice('cus_E2E'), 'cus_E2E', 'invoice.paid'],
    ['twilio', '/webhooks/twilio/ac0123', () => twilioSms(`${served.url}/webhooks/twilio/ac0123`), 'ac0123', 'received'],
    ['slack', '/webhooks/slack', () => slackMention(), 'T0ACME', 'app_mention'],
    ['shopify', '/webhooks/shopify', () => shopifyOrder('e2e.myshopify.com'), 'e2e.myshopify.com', 'orders/create'],
    ['standard', '/webhooks/standard', () => standardEvent(), 'Cust_42', 'invoice.paid'],
  ];
  for (const [provider, urlPath, make, entity, type] of cases) {
    it(`${provider}: signed → stored → read back over the agents protocol → state broadcast to a connected client`, async () => {
      const watcher = new FrameClient(`${served.url}/agents/webhook-agent/${entity}`);
      await watcher.waitForFrames(3);
      const { status, text } = await post(urlPath, make());
      assert.deepEqual([status, text], [200, 'OK']);
      await watcher.waitForFrames(4);
      const broadcast = JSON.parse(watcher.frames[3]!) as { type: string; state: { lastEventType: string; stats: { total: number } } };
      assert.equal(broadcast.type, 'cf_agent_state');
      assert.equal(broadcast.state.lastEventType, type);
      assert.equal(broadcast.state.stats.total, 1);
      await watcher.close();
      const [event] = (await rpc(entity, 'getEvents', [5])) as { type: string; title: string; payload: string; timestamp: string }[];
      assert.equal(event!.type, type);
      assert.ok(event!.title.length > 0);
      assert.doesNotThrow(() => JSON.parse(event!.payload));
      assert.ok(!Number.isNaN(Date.parse(event!.timestamp)));
    });
  }

  it('stores the derived title, url and actor of a GitHub push, and the seed callables answer', async () => {
    await post('/webhooks/github/described', githubPush('Acme/Widgets', 'desc-1'));
    const event = (await rpc('described', 'getEvent', ['desc-1'])) as Record<string, string>;
    assert.equal(event['title'], 'zoe pushed 2 commits to main');
    assert.equal(event['url'], 'https://github.com/Acme/Widgets/compare/a...b');
    assert.equal(event['actor'], 'zoe');
    assert.equal(event['description'], 'Fix the widget');
    assert.deepEqual(await rpc('described', 'getEventsByType', ['push', 1]).then((r) => (r as unknown[]).length), 1);
    assert.deepEqual(await rpc('described', 'getEventsByType', ['issues']), []);
    assert.equal(await rpc('described', 'getEvent', ['nope']), null);
  });

  it('keeps Shopify big integers byte for byte in the stored payload', async () => {
    await post('/webhooks/shopify', shopifyOrder('bigint.myshopify.com'));
    const [event] = (await rpc('bigint.myshopify.com', 'getEvents', [])) as { payload: string }[];
    assert.ok(event!.payload.includes('820982911946154508'), 'the raw body verified; the stored JSON is a parse of it');
  });
});

describe('dedup, retention and secrets', () => {
  it('stores a delivery id once: a duplicate answers 200 OK and changes nothing', async () => {
    const delivery = githubPush('Acme/Dedup', 'same-id');
    assert.equal((await post('/webhooks/github/dedup', delivery)).text, 'OK');
    const watcher = new FrameClient(`${served.url}/agents/webhook-agent/dedup`);
    await watcher.waitForFrames(3);
    assert.deepEqual(await post('/webhooks/github/dedup', delivery).then((r) => [r.status, r.text]), [200, 'OK']);
    assert.equal(((await rpc('dedup', 'getEvents', [])) as unknown[]).length, 1);
    assert.equal(watcher.frames.length, 3, 'no state broadcast for a duplicate');
    await watcher.close();
  });

  it('answers 401 and says no_secret when the provider has no secret configured', async () => {
    const other = await serveDefaultWorker({ secrets: {} });
    try {
      const response = await fetch(`${other.url}/webhooks/github/acme`, { method: 'POST', body: githubPush().body, headers: githubPush().headers });
      assert.deepEqual([response.status, await response.text()], [401, 'Invalid signature']);
      assert.ok(other.logs.some((l) => /no_secret: no secret configured \(set GITHUB_WEBHOOK_SECRET\)/.test(l)));
    } finally {
      await other.stop();
    }
  });

  it('keeps only the newest N events (count retention)', async () => {
    const small = await serveDefaultWorker({ secrets: SECRETS, settings: { retentionCount: 3 } });
    const start = Date.parse('2026-01-01T00:00:00Z');
    mock.timers.enable({ apis: ['Date'], now: start });
    try {
      for (let i = 0; i < 6; i++) {
        // Each delivery a millisecond after the last (the newest are kept by timestamp).
        mock.timers.setTime(start + i);
        const delivery = githubPush('Acme/Retain', `keep-${i}`);
        await fetch(`${small.url}/webhooks/github/retain`, { method: 'POST', body: delivery.body, headers: delivery.headers });
      }
      const client = new FrameClient(`${small.url}/agents/webhook-agent/retain`);
      await client.waitForFrames(3);
      client.send('{"type":"rpc","id":"r","method":"getEvents","args":[50]}');
      await client.waitForFrames(4);
      const ids = (JSON.parse(client.frames[3]!).result as { id: string }[]).map((e) => e.id);
      assert.deepEqual(ids, ['keep-5', 'keep-4', 'keep-3']);
      assert.equal(JSON.parse(client.frames[1]!).state.stats.total, 6, 'stats count every stored delivery');
      await client.close();
    } finally {
      mock.timers.reset();
      await small.stop();
    }
  });

  it('deletes events older than D days (age retention, injected clock)', async () => {
    const aged = await serveDefaultWorker({ secrets: SECRETS, settings: { retentionDays: 30 } });
    const start = Date.parse('2026-01-01T00:00:00Z');
    mock.timers.enable({ apis: ['Date'], now: start });
    try {
      const send = async (id: string) => {
        const delivery = githubPush('Acme/Aged', id);
        await fetch(`${aged.url}/webhooks/github/aged`, { method: 'POST', body: delivery.body, headers: delivery.headers });
      };
      await send('old');
      mock.timers.setTime(start + 29 * 86_400_000);
      await send('recent');
      mock.timers.setTime(start + 31 * 86_400_000);
      await send('new');
      const client = new FrameClient(`${aged.url}/agents/webhook-agent/aged`);
      await client.waitForFrames(3);
      client.send('{"type":"rpc","id":"r","method":"getEvents","args":[50]}');
      await client.waitForFrames(4);
      assert.deepEqual(
        (JSON.parse(client.frames[3]!).result as { id: string }[]).map((e) => e.id),
        ['new', 'recent'],
      );
      await client.close();
    } finally {
      mock.timers.reset();
      await aged.stop();
    }
  });
});

describe('receiver limits', () => {
  it('answers 413 for a body over the limit, and keeps serving', async () => {
    const big = signed('github', JSON.stringify({ repository: { full_name: 'A/B' }, blob: 'x'.repeat(100 * 1024) }), {
      'x-github-event': 'push',
      'x-github-delivery': 'big',
    });
    const response = await fetch(`${served.url}/webhooks/github/big`, { method: 'POST', body: big.body, headers: big.headers }).catch(
      (error: unknown) => error,
    );
    // The receiver answers 413 and closes the connection without reading the rest of the body: the
    // client reads the answer, or — when the close reaches it while it still sends (a reset drops
    // what it had not read) — sees the connection closed. Either way the answer was 413, never a
    // delivery, and the receiver said so before the client saw anything.
    if (response instanceof Response) assert.equal(response.status, 413);
    else assert.ok(response instanceof TypeError && response.message === 'fetch failed', `a 413 or the connection closed, not ${String(response)}`);
    assert.ok(
      served.logs.some((l) => l.includes('POST /webhooks/github/big: Payload Too Large')),
      served.logs.join('\n'),
    );
    assert.equal((await post('/webhooks/github/after-big', githubPush())).status, 200);
  });
});
