// One run's sends as a provider makes them (docs/chaos.md, "What providers do"), against a real
// HTTP server on port 0 that records what it gets, on a manual clock: an answer not given within
// the provider's timeout counts as a failure and is retried with the provider's retry headers;
// a 5xx is retried too, up to the attempts the rule allows; a stale copy is signed past the tolerance under its own delivery id.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeFixtureBody, FIXTURE_FORMAT, type Fixture } from '../../../../src/core/contract/fixtures';
import type { ProviderName } from '../../../../src/core/contract/providers';
import { planOf } from '../../../../src/core/chaos/plan';
import { runPlan, type ChaosTarget } from '../../../../src/core/chaos/runner';
import { chaosSuite } from '../../../../src/core/chaos/suite';
import { ManualTimers } from '../../helpers/manualTimers';

interface Seen {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver that answers each request as `answer` says: a status, or never. */
async function receiver(answer: (seen: Seen, index: number) => number | 'never') {
  const seen: Seen[] = [];
  const hanging: http.ServerResponse[] = [];
  const waiting: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      for (const wake of waiting.splice(0)) wake();
      const status = answer(request, seen.length - 1);
      if (status === 'never') hanging.push(res);
      else res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target: ChaosTarget = {
    worker: 'test receiver',
    open: async () => ({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, snapshot: async () => ({}), close: async () => undefined }),
  };
  after(() => {
    for (const res of hanging) res.destroy();
    server.close();
  });
  /** Resolves once `count` requests have arrived. */
  const arrived = async (count: number) => {
    while (seen.length < count) await new Promise<void>((resolve) => waiting.push(resolve));
  };
  return { seen, target, arrived };
}

const fixture = (provider: ProviderName, body: object, headers: Record<string, string> = {}): Fixture => ({
  format: FIXTURE_FORMAT,
  name: `01-${provider}`,
  provider,
  request: {
    method: 'POST',
    path: `/webhooks/${provider}`,
    query: '',
    headers: { 'content-type': 'application/json', ...headers },
    ...encodeFixtureBody(Buffer.from(JSON.stringify(body))),
  },
});

const slackEvent = fixture('slack', { type: 'event_callback', team_id: 'T1', event_id: 'Ev1', event: { type: 'message' } });

describe('a run’s sends', () => {
  it('counts an answer not given within the provider’s timeout as a failure, and retries as the provider does', async () => {
    const { seen, target, arrived } = await receiver((_, index) => (index === 0 ? 'never' : 200));
    const timers = new ManualTimers(Date.now());
    const deliveries = chaosSuite([{ file: '/s/01.json', fixture: slackEvent }], '/s');
    const plan = planOf({ perturbation: 'retry-after-failure', kept: [0], ops: [{ kind: 'retry', of: 0, attempts: 2, gap: 0 }] }, deliveries);
    const run = runPlan(target, plan, { secrets: new Map([['slack', 'slack-secret']]), timers });
    await arrived(1);
    // Slack waits three seconds.
    await timers.advance(2999);
    assert.equal(seen.length, 1, 'no retry before the timeout');
    await timers.advance(1);
    const result = await run;
    assert.deepEqual(
      result.sends.map((s) => [s.kind, s.attempt, s.status]),
      [
        ['delivery', undefined, undefined],
        ['retry', 2, 200],
      ],
    );
    assert.equal(seen[1]!.headers['x-slack-retry-num'], '1');
    assert.equal(seen[1]!.headers['x-slack-retry-reason'], 'http_timeout');
    assert.equal(seen[1]!.body, seen[0]!.body, 'the same event, event_id and all');
  });

  it('retries a 5xx until the attempts run out, each retry a step later, with the same event id', async () => {
    const { seen, target } = await receiver(() => 500);
    const timers = new ManualTimers(Date.now());
    const stripe = fixture('stripe', { id: 'evt_1', type: 'charge.succeeded', data: { object: { customer: 'cus_1' } } });
    const deliveries = chaosSuite([{ file: '/s/01.json', fixture: stripe }], '/s');
    const plan = planOf({ perturbation: 'retry-after-failure', kept: [0], ops: [{ kind: 'retry', of: 0, attempts: 2, gap: 1 }] }, deliveries);
    const result = await runPlan(target, plan, { secrets: new Map([['stripe', 'whsec_x']]), timers });
    assert.deepEqual(
      result.sends.map((s) => [s.step, s.kind, s.status]),
      [
        [1, 'delivery', 500],
        [2, 'retry', 500],
        [3, 'retry', 500],
      ],
    );
    assert.deepEqual(new Set(seen.map((s) => JSON.parse(s.body).id)), new Set(['evt_1']), 'the same event id each time');
  });

  it('signs a stale copy past the tolerance, under the delivery id it was given', async () => {
    const { seen, target } = await receiver(() => 401);
    const now = Date.now();
    const timers = new ManualTimers(now);
    const stripe = fixture('stripe', { id: 'evt_1', type: 'charge.succeeded', data: { object: { customer: 'cus_1' } } });
    const deliveries = chaosSuite([{ file: '/s/01.json', fixture: stripe }], '/s');
    const plan = planOf({ perturbation: 'stale', kept: [], ops: [{ kind: 'stale', of: 0, at: 0, id: 'evt_stale1' }] }, deliveries);
    const result = await runPlan(target, plan, { secrets: new Map([['stripe', 'whsec_x']]), timers });
    assert.deepEqual(
      result.sends.map((s) => [s.kind, s.deliveryId, s.status]),
      [['stale', 'evt_stale1', 401]],
    );
    assert.equal(JSON.parse(seen[0]!.body).id, 'evt_stale1');
    const t = Number(/t=(\d+)/.exec(String(seen[0]!.headers['stripe-signature']))![1]);
    assert.equal(Math.floor(now / 1000) - t, 360, 'Stripe allows 300 s; the copy is 60 s past it');
  });
});
