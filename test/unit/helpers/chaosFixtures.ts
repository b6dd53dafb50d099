// Fixture sets written the way Save as Fixture writes them (src/core/contract/fixtures.ts), for
// the chaos tests and the chaos benchmark: a temp folder of numbered files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { encodeFixtureBody, FIXTURE_FORMAT, serializeFixture, type Fixture } from '../../../src/core/contract/fixtures';
import type { ProviderName } from '../../../src/core/contract/providers';
import { buildDelivery, findTemplate } from '../../../src/core/payloads';

export interface Delivery {
  readonly name: string;
  readonly provider: ProviderName;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
}

export function fixtureOf(delivery: Delivery): Fixture {
  return {
    format: FIXTURE_FORMAT,
    name: delivery.name,
    provider: delivery.provider,
    request: {
      method: 'POST',
      path: delivery.path,
      query: '',
      headers: Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k.toLowerCase(), v])),
      ...encodeFixtureBody(Buffer.from(delivery.body)),
    },
  };
}

/** Writes `deliveries` as `<dir>/NN-<name>.json`, in order; answers the folder. */
export function writeSuite(dir: string, deliveries: readonly Delivery[]): string {
  fs.mkdirSync(dir, { recursive: true });
  deliveries.forEach((delivery, i) => {
    const name = `${String(i + 1).padStart(2, '0')}-${delivery.name}`;
    fs.writeFileSync(path.join(dir, `${name}.json`), serializeFixture({ ...fixtureOf(delivery), name }));
  });
  return dir;
}

/** A Stripe event for `customer`, as Stripe sends it to /webhooks/stripe (the built-in worker's route). */
export function stripeEvent(
  name: string,
  id: string,
  customer: string,
  type: string,
  object: Record<string, unknown> = {},
  route = '/webhooks/stripe',
): Delivery {
  const body = JSON.stringify({ id, object: 'event', type, created: 1_767_225_600, data: { object: { customer, ...object } } }, null, 2);
  return {
    name,
    provider: 'stripe',
    path: route,
    headers: { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
    body,
  };
}

/** A GitHub event from Hookbench's templates (real payload shapes), for repository `repo`. */
export function githubEvent(name: string, event: 'push' | 'issues' | 'pull_request', repo: string, id: string): Delivery {
  const delivery = buildDelivery(findTemplate('github', event)!, { entity: repo, id, now: new Date('2026-01-01T00:00:00Z') });
  return { name, provider: 'github', path: '/webhooks/github', headers: delivery.headers, body: delivery.body };
}

/** A payment to the differential area's ledger (test/differential/areas/webhook-concurrency), signed as the generic provider signs. */
export function ledgerPayment(name: string, style: string, customer: string, id: string, amount: number): Delivery {
  return {
    name,
    provider: 'generic',
    path: `/webhooks/${style}/${customer}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, amount }),
  };
}
