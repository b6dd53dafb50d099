/**
 * The invoice-renderer area: the worker that joins the seed's two halves (a Stripe invoice.paid
 * rendered to a PDF through the Browser Rendering binding, stored in R2, recorded by an agent per
 * customer: test/fixtures/workers/invoices), run unchanged in both runtimes. wrangler dev's browser
 * binding downloads Chrome at its first launch, which cannot happen offline (docs/runtime.md, The
 * Browser Rendering binding), so the steps compare everything of the worker but the render: its
 * signature check on the raw body, the events it ignores, R2 reads of missing invoices, and the
 * agent router's answer for what it does not route. The render itself is checked under Hookbench
 * by test/unit/serve/browserBinding.test.ts.
 */
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Area, HttpStep } from '../../step';

/** The secret both runtimes read from the working copy's .dev.vars. */
const SECRET = 'whsec_invoice-renderer';

/** A Stripe event as Stripe signs it: `t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`. */
const signed = (name: string, type: string, object: Record<string, unknown>): HttpStep => {
  const body = JSON.stringify({ id: `evt_${name.replace(/\W+/g, '_')}`, object: 'event', type, data: { object } });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
  return { name, method: 'POST', path: '/webhooks/stripe', headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${v1}` }, body };
};

export const area: Area = {
  name: 'invoice-renderer',
  folder: 'invoice-renderer',
  prepare(work) {
    // This script runs bundled from out/differential/scripts: the checkout is three folders up.
    const fixture = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'workers', 'invoices');
    fs.cpSync(fixture, work, { recursive: true });
    fs.writeFileSync(path.join(work, '.dev.vars'), `STRIPE_WEBHOOK_SECRET=${SECRET}\n`);
  },
  steps: [
    {
      ...signed('an invoice.paid signed with another secret is refused', 'invoice.paid', { id: 'in_forged', customer: 'cus_1' }),
      headers: { 'content-type': 'application/json', 'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
    },
    {
      name: 'an unsigned invoice.paid is refused',
      method: 'POST',
      path: '/webhooks/stripe',
      headers: { 'content-type': 'application/json' },
      body: '{"type":"invoice.paid"}',
    },
    signed('a signed customer.created is acknowledged and ignored', 'customer.created', { id: 'cus_1', object: 'customer' }),
    signed('a signed invoice.finalized is acknowledged and ignored', 'invoice.finalized', { id: 'in_1', customer: 'cus_1' }),
    { name: 'no PDF stored for an invoice never paid', path: '/invoices/in_never.pdf' },
    { name: 'a path the agent router does not route', path: '/nothing-here' },
  ],
};
