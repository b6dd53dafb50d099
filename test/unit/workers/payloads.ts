// Minimal but realistic deliveries for each provider, signed by our signer.
import { schemeFor, type ProviderName } from '../../../src/core/signing';

export const SECRETS = {
  GITHUB_WEBHOOK_SECRET: 'gh-secret',
  STRIPE_WEBHOOK_SECRET: 'whsec_stripe_test',
  TWILIO_AUTH_TOKEN: 'twilio-token',
  SLACK_SIGNING_SECRET: 'slack-secret',
  SHOPIFY_WEBHOOK_SECRET: 'shopify-secret',
  STANDARD_WEBHOOK_SECRET: 'whsec_' + Buffer.from('standard webhooks secret!').toString('base64'),
};

export interface Delivery {
  readonly body: string;
  readonly headers: Record<string, string>;
}

const secretFor: Record<ProviderName, string> = {
  github: SECRETS.GITHUB_WEBHOOK_SECRET,
  stripe: SECRETS.STRIPE_WEBHOOK_SECRET,
  twilio: SECRETS.TWILIO_AUTH_TOKEN,
  slack: SECRETS.SLACK_SIGNING_SECRET,
  shopify: SECRETS.SHOPIFY_WEBHOOK_SECRET,
  standard: SECRETS.STANDARD_WEBHOOK_SECRET,
  generic: 'generic',
};

export function signed(provider: ProviderName, body: string, headers: Record<string, string>, url?: string, secret = secretFor[provider]): Delivery {
  const out = schemeFor(provider).sign({ secret, body: Buffer.from(body), ...(url ? { url } : {}) });
  return { body, headers: { ...headers, ...out.headers } };
}

export function githubPush(repo = 'Acme/Widgets', delivery = `d-${Math.random().toString(36).slice(2)}`): Delivery {
  const body = JSON.stringify({
    ref: 'refs/heads/main',
    repository: { full_name: repo, html_url: `https://github.com/${repo}` },
    pusher: { name: 'zoe' },
    sender: { login: 'zoe' },
    commits: [{ id: 'a' }, { id: 'b' }],
    head_commit: { message: 'Fix the widget' },
    compare: `https://github.com/${repo}/compare/a...b`,
  });
  return signed('github', body, { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery });
}

export function stripeInvoice(customer: string | null = 'cus_123', id = `evt_${Math.random().toString(36).slice(2)}`): Delivery {
  const object =
    customer === null
      ? { object: 'invoice', id: 'in_1' }
      : { object: 'invoice', id: 'in_1', customer, amount_paid: 1999, currency: 'usd', customer_email: 'ana@example.com' };
  const body = JSON.stringify({ id, object: 'event', type: 'invoice.paid', livemode: false, data: { object } });
  return signed('stripe', body, { 'content-type': 'application/json' });
}

export function twilioSms(url: string): Delivery {
  const body = new URLSearchParams({
    AccountSid: 'AC0123',
    MessageSid: 'SM1',
    From: '+14155550100',
    To: '+14155550199',
    Body: 'Hello 👋',
    SmsStatus: 'received',
  }).toString();
  return signed('twilio', body, { 'content-type': 'application/x-www-form-urlencoded', 'i-twilio-idempotency-token': `tw-${Math.random()}` }, url);
}

export function slackMention(): Delivery {
  const body = JSON.stringify({
    type: 'event_callback',
    team_id: 'T0ACME',
    event_id: `Ev${Math.random().toString(36).slice(2)}`,
    event: { type: 'app_mention', user: 'U1', text: '<@bot> deploy', channel: 'C1' },
  });
  return signed('slack', body, { 'content-type': 'application/json' });
}

export function shopifyOrder(shop = 'acme.myshopify.com'): Delivery {
  const body = `{"id":820982911946154508,"name":"#1001","total_price":"12.00","currency":"USD","email":"ana@example.com"}`;
  return signed('shopify', body, {
    'content-type': 'application/json',
    'x-shopify-topic': 'orders/create',
    'x-shopify-shop-domain': shop,
    'x-shopify-event-id': `e-${Math.random()}`,
  });
}

export function standardEvent(): Delivery {
  const body = JSON.stringify({ type: 'invoice.paid', data: { customer_id: 'Cust_42', amount: 10 } });
  return signed('standard', body, { 'content-type': 'application/json' });
}
