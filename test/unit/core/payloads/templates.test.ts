// Every template makes a delivery the built-in worker accepts once signed, with the entity where
// the provider keeps it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allTemplates, buildDelivery, findTemplate, templatesFor } from '../../../../src/core/payloads';
import { locate, normalizeHeaders, schemeFor } from '../../../../src/core/signing';
import { parsePayload } from '../../../../src/workers/default/payload';
import { serveDefaultWorker, type Served } from '../../helpers/serveWorker';
import { SECRETS } from '../../workers/payloads';

const secretOf = (provider: string) =>
  ({
    github: SECRETS.GITHUB_WEBHOOK_SECRET,
    stripe: SECRETS.STRIPE_WEBHOOK_SECRET,
    twilio: SECRETS.TWILIO_AUTH_TOKEN,
    slack: SECRETS.SLACK_SIGNING_SECRET,
    shopify: SECRETS.SHOPIFY_WEBHOOK_SECRET,
    standard: SECRETS.STANDARD_WEBHOOK_SECRET,
    generic: 'generic-secret',
  })[provider]!;

let served: Served;
before(async () => {
  served = await serveDefaultWorker({ secrets: { ...SECRETS, GENERIC_WEBHOOK_SECRET: 'generic-secret' } });
});
after(() => served.stop());

describe('templates', () => {
  it('cover every provider, with GitHub events taken from GitHub’s own examples', () => {
    for (const provider of ['github', 'stripe', 'twilio', 'slack', 'shopify', 'standard', 'generic'] as const)
      assert.ok(templatesFor(provider).length > 0, provider);
    assert.ok(templatesFor('github').length >= 58);
    assert.ok(findTemplate('github', 'push'));
    assert.ok(findTemplate('github', 'pull_request.closed'));
  });

  it('put the entity where each provider keeps it', () => {
    const cases: [string, string, string][] = [
      ['github', 'push', 'acme/widgets'],
      ['stripe', 'invoice.paid', 'cus_X'],
      ['twilio', 'sms.received', 'AC9'],
      ['slack', 'app_mention', 'T9'],
      ['shopify', 'orders/create', 'shop.myshopify.com'],
      ['standard', 'invoice.paid', 'cust_9'],
    ];
    for (const [provider, event, entity] of cases) {
      const delivery = buildDelivery(findTemplate(provider as never, event)!, { entity });
      const { payload } = parsePayload(delivery.body, delivery.headers['content-type'] ?? null);
      assert.equal(locate(schemeFor(provider).shape.entity, normalizeHeaders(delivery.headers), payload), entity, `${provider} ${event}`);
    }
  });

  it('are all accepted by the built-in worker once signed (200 OK, stored)', async () => {
    const failures: string[] = [];
    for (const template of allTemplates()) {
      const entity = `tpl-${template.provider}`;
      const url = `${served.url}/webhooks/${template.provider}/${entity}`;
      const delivery = buildDelivery(template, { entity });
      const signed = schemeFor(template.provider).sign({ secret: secretOf(template.provider), body: delivery.body, url });
      const response = await fetch(signed.url ?? url, { method: 'POST', body: delivery.body, headers: { ...delivery.headers, ...signed.headers } });
      const text = await response.text();
      if (response.status !== 200 || text !== 'OK') failures.push(`${template.provider} ${template.event}: ${response.status} ${text}`);
    }
    assert.deepEqual(failures, []);
  });
});
