// Stripe's templates against the stripe package package.json pins: its event names, its API
// version, its signature check; the entity where Stripe keeps it; and what the explorer calls them.
// (Each object's shape is checked by tsc: the builders return the package's own types.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import Stripe from 'stripe';
import { send } from '../../../../src/cli/send';
import { buildDelivery, templatesFor } from '../../../../src/core/payloads';
import { locate, normalizeHeaders, schemeFor } from '../../../../src/core/signing';
import { describeEvent } from '../../../../src/workers/default/describe';

const stripeTemplates = templatesFor('stripe');
const NOW = new Date('2026-11-24T10:00:00Z');

/** The members of `Event.Type` in the package's Events.d.ts, the union every event's `type` belongs to. */
function packageEventTypes(): Set<string> {
  const dts = fs.readFileSync(path.join(path.dirname(require.resolve('stripe')), 'resources', 'Events.d.ts'), 'utf8');
  const union = /type Type = ([^;]+);/.exec(dts)?.[1];
  assert.ok(union, 'Events.d.ts declares Event.Type');
  return new Set([...union.matchAll(/'([^']+)'/g)].map((m) => m[1]!));
}

/** A delivered event as JSON, read loosely: the objects' shapes are tsc's to check. */
interface Delivered {
  readonly [key: string]: unknown;
  readonly data: { readonly object: Readonly<Record<string, unknown>>; readonly previous_attributes?: unknown };
  readonly request: object;
}

const bodyOf = (event: string, entity?: string) =>
  JSON.parse(
    buildDelivery(
      stripeTemplates.find((t) => t.event === event)!,
      { entity, now: NOW, id: '0b7c4f1e-9a2d-4c3b-8e5f-6a1d2c3b4e5f' },
    ).body.toString('utf8'),
  ) as Delivered;

describe('Stripe templates', () => {
  it('name the forty-plus common events, every one a member of the stripe package’s event types', () => {
    const known = packageEventTypes();
    assert.ok(known.size > 200, `${known.size} event types read`);
    assert.ok(stripeTemplates.length >= 40, `${stripeTemplates.length} templates`);
    assert.deepEqual(
      stripeTemplates.filter((t) => !known.has(t.event)).map((t) => t.event),
      [],
    );
    const asked = [
      'checkout.session.completed',
      'customer.subscription.trial_will_end',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_failed',
      'invoice.payment_succeeded',
      'invoice.upcoming',
      'invoice.voided',
      'invoice.marked_uncollectible',
      'invoice_payment.paid',
      'charge.refunded',
      'charge.dispute.created',
      'charge.dispute.closed',
      'payment_method.attached',
      'payment_method.detached',
      'account.updated',
      'balance.available',
      'billing_portal.session.created',
      'mandate.updated',
    ];
    assert.deepEqual(
      asked.filter((event) => !stripeTemplates.some((t) => t.event === event)),
      [],
    );
  });

  it('wrap each object in the envelope Stripe sends, with the package’s API version', () => {
    for (const { event } of stripeTemplates) {
      const body = bodyOf(event);
      assert.equal(body['api_version'], Stripe.API_VERSION, event);
      assert.equal(body['type'], event);
      assert.equal(body['object'], 'event');
      assert.match(String(body['id']), /^evt_1[0-9a-f]{23}$/);
      assert.equal(body['created'], NOW.getTime() / 1000);
      assert.equal(body['livemode'], false);
      assert.notEqual(body['data']['object']['livemode'], true, event);
      assert.equal(body['pending_webhooks'], 1);
      assert.deepEqual(Object.keys(body['request']), ['id', 'idempotency_key']);
      assert.equal('previous_attributes' in body['data'], event.endsWith('.updated'), `${event}: previous_attributes on *.updated only`);
    }
  });

  it('keep each object’s state consistent with its event', () => {
    assert.equal(bodyOf('invoice.paid')['data']['object']['status'], 'paid');
    assert.equal(bodyOf('invoice.paid')['data']['object']['amount_paid'], 2000);
    assert.equal(bodyOf('invoice.voided')['data']['object']['status'], 'void');
    assert.equal(bodyOf('invoice.created')['data']['object']['status'], 'draft');
    assert.equal((bodyOf('payment_intent.payment_failed').data.object['last_payment_error'] as { code: string }).code, 'card_declined');
    assert.equal(bodyOf('charge.refunded')['data']['object']['refunded'], true);
    assert.equal(bodyOf('charge.dispute.closed')['data']['object']['status'], 'won');
    const trial = bodyOf('customer.subscription.trial_will_end')['data']['object'];
    assert.equal(trial['status'], 'trialing');
    assert.equal(Number(trial['trial_end']) - NOW.getTime() / 1000, 3 * 86_400);
    assert.deepEqual(bodyOf('customer.subscription.updated')['data']['previous_attributes'], { status: 'incomplete' });
  });

  it('put the entity where Stripe keeps it: the customer, or the connected account', () => {
    const shape = schemeFor('stripe').shape.entity;
    for (const template of stripeTemplates) {
      const delivery = buildDelivery(template, { entity: 'Entity42', now: NOW });
      const body = JSON.parse(delivery.body.toString('utf8')) as Delivered;
      assert.equal(locate(shape, normalizeHeaders(delivery.headers), body), 'Entity42', template.event);
      // One place only: a connected account's event names no customer.
      assert.equal(
        [
          body['data']['object']['customer'],
          body['data']['object']['object'] === 'customer' ? body['data']['object']['id'] : undefined,
          body['account'],
        ].filter((v) => v === 'Entity42').length,
        1,
        template.event,
      );
    }
  });

  it('say what happened in the built-in worker’s title, not the type again', () => {
    const body = bodyOf('invoice.paid', 'cus_Title');
    const summary = describeEvent('stripe', 'invoice.paid', undefined, body, new Headers());
    assert.equal(summary.title, `an invoice was paid · ${String(body.data.object['id'])} · 20.00 USD`);
    assert.equal(
      describeEvent('stripe', 'coupon.deleted', undefined, { type: 'coupon.deleted', data: { object: { id: 'Z4OV52SU' } } }, new Headers()).title,
      'coupon deleted · Z4OV52SU',
    );
    for (const t of stripeTemplates) assert.ok(!t.description.includes(t.event), `${t.event}: ${t.description}`);
  });
});

describe('hookbench send --provider stripe', () => {
  const secret = 'whsec_stripe_templates';
  const received: { type: string; entity: string | undefined }[] = [];
  let server: http.Server;
  let url: string;
  before(async () => {
    // A receiver that checks each delivery with stripe-node's own constructEvent, on the raw bytes.
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          const event = Stripe.webhooks.constructEvent(Buffer.concat(chunks), String(request.headers['stripe-signature']), secret);
          const object = event.data.object as { id?: string; object: string; customer?: unknown };
          received.push({
            type: event.type,
            entity: typeof object.customer === 'string' ? object.customer : object.object === 'customer' ? object.id : event.account,
          });
          response.writeHead(200).end('ok');
        } catch (error) {
          response.writeHead(400).end((error as Error).message);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/stripe`;
  });
  after(() => server.close());

  it('signs every template so that stripe-node verifies it, with an entity to route by', async () => {
    const out: string[] = [];
    const io = { stdin: process.stdin, stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => out.push(s) }, env: {} };
    for (const { event } of stripeTemplates)
      assert.equal(await send(['--provider', 'stripe', '--event', event, '--url', url, '--secret', secret], io), 0, `${event}: ${out.join('')}`);
    assert.deepEqual(
      received.map((r) => r.type),
      stripeTemplates.map((t) => t.event),
    );
    assert.deepEqual(
      received.filter((r) => !/^(cus|acct)_/.test(r.entity ?? '')),
      [],
    );
  });
});
