import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detectProvider, locate, normalizeHeaders, parseForm, schemeFor } from '../../../../src/core/signing';

describe('detectProvider', () => {
  const cases: [Record<string, string>, string | undefined][] = [
    [{ 'X-Hub-Signature-256': 'sha256=…' }, 'github'],
    [{ 'Stripe-Signature': 't=1' }, 'stripe'],
    [{ 'X-Twilio-Signature': 'x' }, 'twilio'],
    [{ 'X-Slack-Signature': 'v0=' }, 'slack'],
    [{ 'X-Shopify-Hmac-Sha256': 'x' }, 'shopify'],
    [{ 'shopify-hmac-sha256': 'x' }, 'shopify'],
    [{ 'webhook-signature': 'v1,x' }, 'standard'],
    [{ 'svix-signature': 'v1,x' }, 'standard'],
    [{ 'X-Signature': 'ab' }, 'generic'],
    [{ 'X-Signature': 'ab', 'X-Hub-Signature-256': 'sha256=' }, 'github'],
    [{ 'Content-Type': 'application/json' }, undefined],
  ];
  for (const [headers, expected] of cases) {
    it(`${JSON.stringify(headers)} → ${expected}`, () => {
      assert.equal(detectProvider(normalizeHeaders(headers)), expected);
    });
  }
});

describe('schemeFor', () => {
  it('names the known providers when asked for another', () => {
    assert.throws(() => schemeFor('gitlab'), /unknown provider "gitlab" \(known: github, stripe/);
  });
});

describe('delivery shapes', () => {
  const find = (provider: string, field: 'eventType' | 'deliveryId' | 'entity' | 'action', headers: Record<string, string>, payload: unknown) =>
    locate(schemeFor(provider).shape[field], normalizeHeaders(headers), payload);

  it('GitHub: event and delivery from headers, entity from repository.full_name, then the organization', () => {
    const headers = { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'd-1' };
    assert.equal(find('github', 'eventType', headers, {}), 'push');
    assert.equal(find('github', 'deliveryId', headers, {}), 'd-1');
    assert.equal(find('github', 'entity', headers, { repository: { full_name: 'Acme/Widgets' } }), 'Acme/Widgets');
    assert.equal(find('github', 'entity', headers, { organization: { login: 'acme' } }), 'acme');
    assert.equal(find('github', 'entity', headers, { installation: { id: 42 } }), '42');
    assert.equal(find('github', 'action', headers, { action: 'opened' }), 'opened');
  });

  it('Stripe: customer of the object, or the object itself when it is a customer', () => {
    assert.equal(find('stripe', 'entity', {}, { data: { object: { object: 'invoice', customer: 'cus_1' } } }), 'cus_1');
    assert.equal(find('stripe', 'entity', {}, { data: { object: { object: 'customer', id: 'cus_2' } } }), 'cus_2');
    assert.equal(find('stripe', 'entity', {}, { data: { object: { object: 'charge', id: 'ch_1' } } }), undefined);
    assert.equal(find('stripe', 'deliveryId', {}, { id: 'evt_1' }), 'evt_1');
  });

  it('Twilio: AccountSid from the form fields', () => {
    const form = parseForm(Buffer.from('AccountSid=AC9&SmsStatus=received'));
    assert.equal(find('twilio', 'entity', {}, form), 'AC9');
    assert.equal(find('twilio', 'eventType', {}, form), 'received');
  });

  it('Slack: team_id, or team.id of interactivity payloads; event_id for dedup', () => {
    assert.equal(find('slack', 'entity', {}, { team_id: 'T1', event_id: 'Ev1', event: { type: 'app_mention' } }), 'T1');
    assert.equal(find('slack', 'entity', {}, { team: { id: 'T2' } }), 'T2');
    assert.equal(find('slack', 'eventType', {}, { type: 'event_callback', event: { type: 'app_mention' } }), 'app_mention');
    assert.equal(find('slack', 'deliveryId', {}, { event_id: 'Ev1' }), 'Ev1');
  });

  it('Shopify: shop domain, topic and event id from either header family', () => {
    const classic = {
      'X-Shopify-Shop-Domain': 'a.myshopify.com',
      'X-Shopify-Topic': 'orders/create',
      'X-Shopify-Event-Id': 'e1',
      'X-Shopify-Webhook-Id': 'w1',
    };
    assert.equal(find('shopify', 'entity', classic, {}), 'a.myshopify.com');
    assert.equal(find('shopify', 'eventType', classic, {}), 'orders/create');
    assert.equal(find('shopify', 'deliveryId', classic, {}), 'e1');
    assert.equal(find('shopify', 'deliveryId', { 'shopify-webhook-id': 'w2' }, {}), 'w2');
  });

  it('Standard Webhooks: webhook-id (or svix-id) is the delivery id', () => {
    assert.equal(find('standard', 'deliveryId', { 'svix-id': 'msg_1' }, {}), 'msg_1');
    assert.equal(find('standard', 'eventType', {}, { type: 'invoice.paid' }), 'invoice.paid');
  });

  it('skips empty values and non-scalar ones', () => {
    assert.equal(find('github', 'entity', {}, { repository: { full_name: '' }, organization: { login: { x: 1 } } }), undefined);
  });
});

describe('decodeBase64Digest', () => {
  it('accepts only the canonical base64 of a digest of the given size', async () => {
    const { decodeBase64Digest } = await import('../../../../src/core/signing/crypto');
    for (const size of [20, 32, 64]) {
      for (let i = 0; i < 200; i++) {
        const digest = Buffer.from(Array.from({ length: size }, (_, j) => (i * 31 + j * 7) & 0xff));
        const text = digest.toString('base64');
        assert.deepEqual(decodeBase64Digest(text, size), digest);
        // Every other spelling Node would decode to the same bytes is refused.
        for (let k = 0; k < text.length; k++) {
          for (const replacement of ['-', '_', '*', String.fromCharCode(text.charCodeAt(k) ^ 1)]) {
            const other = text.slice(0, k) + replacement + text.slice(k + 1);
            const decoded = decodeBase64Digest(other, size);
            if (decoded) assert.notDeepEqual(decoded, digest, `${other} decodes to the same digest`);
          }
        }
      }
    }
    assert.equal(decodeBase64Digest(Buffer.alloc(32).toString('base64url'), 32), undefined);
    assert.equal(decodeBase64Digest('', 32), undefined);
  });
});
