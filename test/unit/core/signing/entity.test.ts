// The entity the receiver finds in a delivery, read the same way for the send prompt's default and
// the chaos suite's grouping.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allTemplates, buildDelivery, findTemplate } from '../../../../src/core/payloads';
import { entityOf } from '../../../../src/core/signing';

describe('entityOf', () => {
  it("finds each provider's entity where it keeps it: the repository, the customer, the team, the shop, the account", () => {
    const own = (provider: Parameters<typeof findTemplate>[0], event: string) => {
      const delivery = buildDelivery(findTemplate(provider, event)!);
      return entityOf(provider, delivery.headers, delivery.body);
    };
    assert.equal(own('github', 'push'), 'Codertocat/Hello-World');
    assert.match(own('stripe', 'invoice.paid') ?? '', /^cus_/);
    const named = buildDelivery(findTemplate('github', 'push')!, { entity: 'acme/api' });
    assert.equal(entityOf('github', named.headers, named.body), 'acme/api');
  });

  it('reads form-encoded bodies (Twilio, Slack commands) as the receiver does', () => {
    const form = Buffer.from('AccountSid=AC123&From=%2B15551234567&Body=hi');
    assert.equal(entityOf('twilio', { 'content-type': 'application/x-www-form-urlencoded' }, form), 'AC123');
  });

  it('names an entity for every provider template the send prompt offers (the generic one carries only what it is given)', () => {
    const without = allTemplates().filter((t) => {
      if (t.provider === 'generic') return false;
      const delivery = buildDelivery(t);
      return entityOf(t.provider, delivery.headers, delivery.body) === undefined;
    });
    assert.deepEqual(
      without.map((t) => `${t.provider} ${t.event}`),
      [],
    );
  });
});
