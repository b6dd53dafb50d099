// serve --retries (docs/chaos.md, "Provider retries while developing"): a real serve on 127.0.0.1
// running a worker that fails the first two attempts of every event, on a manual clock. A Stripe
// delivery sent by Hookbench comes back on Stripe's schedule (compressed), re-signed — the worker
// checks the signature — until it is answered 2xx; your own curl is never retried; the records say
// what comes next and link each retry to the first attempt; stopping serve drops what waits.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PROVIDER_BEHAVIOUR } from '../../../src/core/chaos/providerBehaviour';
import type { DeliverySummary } from '../../../src/core/contract/deliveries';
import { signedRequest } from '../../../src/core/fixtures/signedRequest';
import { nullLogger } from '../../../src/core/log';
import { DeliveryRetries } from '../../../src/serve/deliveryRetries';
import { fixtureOf, stripeEvent } from '../helpers/chaosFixtures';
import { ManualTimers } from '../helpers/manualTimers';
import { serveFixture, type Served } from '../helpers/serveWorker';

const SECRET = 'whsec_retries-test-secret';
const SCALE = 0.001;
const HOUR = 3_600_000;

let served: Served | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

async function serveFlaky(timers: ManualTimers): Promise<Served> {
  served = await serveFixture('flaky', { secrets: { STRIPE_WEBHOOK_SECRET: SECRET }, timers, retries: { scale: SCALE } });
  return served;
}

/** Stripe's event `id` for `customer`, signed now, sent as `source` names itself (none: a plain curl). */
async function post(url: string, id: string, customer: string, source?: 'send' | 'replay'): Promise<number> {
  const request = signedRequest(fixtureOf(stripeEvent(id, id, customer, 'charge.succeeded', {}, `/webhooks/stripe/${customer}`)), {
    secret: SECRET,
    base: url,
    ...(source ? { source } : {}),
  });
  const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
  await response.arrayBuffer();
  return response.status;
}

/** Resolves with the deliveries once `count` were recorded. */
function recorded(serve: Served, count: number): Promise<DeliverySummary[]> {
  const now = () => serve.server.deliveries.list(100).reverse();
  if (now().length >= count) return Promise.resolve(now());
  return new Promise((resolve) => {
    const sub = serve.server.deliveries.onDidRecord(() => {
      if (now().length < count) return;
      sub.dispose();
      resolve(now());
    });
  });
}

async function attempts(url: string, customer: string): Promise<unknown> {
  return (await fetch(`${url}/attempts/${customer}`)).json();
}

describe('serve --retries', () => {
  it('sends a failed delivery again on Stripe’s schedule, compressed and re-signed, until it is answered 2xx', async () => {
    const timers = new ManualTimers(Date.now());
    const serve = await serveFlaky(timers);
    assert.equal(await post(serve.url, 'evt_1', 'cus_1', 'send'), 500);
    const [first] = await recorded(serve, 1);
    const [hour1, hour2] = PROVIDER_BEHAVIOUR.stripe.retryDelaysMs;
    assert.deepEqual(first!.nextRetry, { retry: 1, retries: 3, at: new Date(timers.now() + hour1! * SCALE).toISOString() });

    await timers.advance(hour1! * SCALE - 1);
    assert.equal(serve.server.deliveries.list(100).length, 1, 'nothing before its time');
    await timers.advance(1);
    const [, retry1] = await recorded(serve, 2);
    assert.equal(retry1!.status, 500, 'the worker verified the new signature and failed again');
    assert.deepEqual(retry1!.source, { kind: 'retry', of: first!.id, retry: 1 });
    assert.equal(retry1!.requestHeaders['stripe-signature'] === first!.requestHeaders['Stripe-Signature'], false, 'signed anew');
    assert.equal(retry1!.nextRetry?.retry, 2);

    await timers.advance(hour2! * SCALE);
    const [, , retry2] = await recorded(serve, 3);
    assert.equal(retry2!.status, 200);
    assert.deepEqual(retry2!.source, { kind: 'retry', of: first!.id, retry: 2 });
    assert.equal(retry2!.nextRetry, undefined, 'a 2xx ends the retries');

    await timers.advance(24 * HOUR);
    assert.equal(serve.server.deliveries.list(100).length, 3);
    assert.deepEqual(await attempts(serve.url, 'cus_1'), [{ event: 'evt_1', n: 3 }]);
  });

  it('never retries a request that names no Hookbench source (your own curl)', async () => {
    const timers = new ManualTimers(Date.now());
    const serve = await serveFlaky(timers);
    assert.equal(await post(serve.url, 'evt_2', 'cus_2'), 500);
    const [only] = await recorded(serve, 1);
    assert.equal(only!.nextRetry, undefined);
    await timers.advance(24 * HOUR);
    assert.equal(serve.server.deliveries.list(100).length, 1);
  });

  it('drops the retries still waiting when serve stops', async () => {
    const timers = new ManualTimers(Date.now());
    const serve = await serveFlaky(timers);
    assert.equal(await post(serve.url, 'evt_3', 'cus_3', 'replay'), 500);
    await recorded(serve, 1);
    await serve.stop();
    served = undefined;
    await timers.advance(24 * HOUR);
    assert.equal(serve.server.deliveries.list(100).length, 1);
  });
});

describe('which deliveries a provider retries', () => {
  const timers = new ManualTimers(0);
  const retries = new DeliveryRetries({ scale: 1, timers, logger: nullLogger, secrets: {} });
  const stripe = { provider: 'stripe', requestHeaders: {}, source: { kind: 'send' as const } };

  it('a 5xx, and an answer later than the provider waits, whatever its status', () => {
    assert.equal(retries.plan({ ...stripe, status: 503, durationMs: 5 })?.retry, 1);
    assert.equal(retries.plan({ ...stripe, status: 200, durationMs: 30_001 })?.retry, 1);
    assert.equal(
      retries.plan({ provider: 'slack', requestHeaders: {}, source: { kind: 'replay' }, status: 200, durationMs: 3_001 })?.at,
      new Date(0).toISOString(),
      'Slack retries nearly at once',
    );
  });

  it('not a 2xx in time, not a 4xx, not after the schedule’s last retry, not a provider with no retries', () => {
    assert.equal(retries.plan({ ...stripe, status: 200, durationMs: 29_000 }), undefined);
    assert.equal(retries.plan({ ...stripe, status: 401, durationMs: 5 }), undefined);
    assert.equal(
      retries.plan({ ...stripe, source: { kind: 'retry', of: '00000000-0000-0000-0000-000000000000', retry: 3 }, status: 500, durationMs: 5 }),
      undefined,
    );
    assert.equal(retries.plan({ provider: 'twilio', requestHeaders: {}, source: { kind: 'send' }, status: 500, durationMs: 5 }), undefined);
  });

  it('finds the provider from its signature header when the worker names none', () => {
    assert.equal(
      retries.plan({
        provider: null,
        requestHeaders: { 'X-Shopify-Hmac-Sha256': 'x' },
        source: { kind: 'public', name: 'example.ngrok.app' },
        status: 500,
        durationMs: 5,
      })?.retries,
      8,
    );
  });
});

describe('a retry re-signs only what was signed', () => {
  it('sends again an attempt signed with the secret, and never one anyone could make naming itself a send', async () => {
    const http = await import('node:http');
    const arrived: string[] = [];
    const server = http.createServer((req, res) => {
      arrived.push(String(req.headers['stripe-signature']));
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const timers = new ManualTimers(Date.now());
    const retries = new DeliveryRetries({ scale: SCALE, timers, logger: nullLogger, secrets: { STRIPE_WEBHOOK_SECRET: SECRET } });
    retries.listening(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
    try {
      const attempt = (signature: string | undefined, id: string) => {
        const request = signedRequest(fixtureOf(stripeEvent(id, id, 'cus_9', 'charge.succeeded', {}, '/webhooks/stripe/cus_9')), {
          secret: SECRET,
          base: 'http://127.0.0.1:1',
        });
        const headers = { ...request.headers, ...(signature !== undefined ? { 'stripe-signature': signature } : {}) };
        const failed = { provider: 'stripe', requestHeaders: headers, source: { kind: 'send' as const }, status: 500, durationMs: 5 };
        const next = retries.plan(failed);
        assert.ok(next, 'a 5xx from a send is planned');
        const summary = {
          ...failed,
          id,
          time: new Date(timers.now()).toISOString(),
          method: 'POST',
          path: '/webhooks/stripe/cus_9',
          requestTruncated: false,
          responseHeaders: {},
          entity: 'cus_9',
          verification: null,
          requestBytes: request.body.length,
        };
        retries.schedule(summary, request.body, next);
      };
      attempt(undefined, 'evt_signed');
      attempt(`t=${Math.floor(timers.now() / 1000)},v1=${'0'.repeat(64)}`, 'evt_forged');
      await timers.advance(HOUR);
      await retries.stop();
      assert.equal(arrived.length, 1, `one retry sent: ${arrived.join(' | ')}`);
      assert.doesNotMatch(arrived[0]!, /v1=0{64}/);
    } finally {
      server.close();
    }
  });
});
