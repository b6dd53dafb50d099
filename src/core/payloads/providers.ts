/**
 * Realistic deliveries for Twilio, Slack, Shopify and Standard Webhooks, shaped like the providers'
 * documented payloads (Stripe's are in ./stripe). The entity goes where each provider keeps it.
 */
import { bigint, form, json, unix, type Template, type TemplateContext } from './types';

const twilioTemplate = (event: string, description: string, fields: (c: TemplateContext, account: string) => Record<string, string>): Template => ({
  provider: 'twilio',
  event,
  description,
  build(context) {
    const account = context.entity ?? 'AC0123456789abcdef0123456789abcdef';
    return form(fields(context, account), { 'i-twilio-idempotency-token': context.id, 'user-agent': 'TwilioProxy/1.1' });
  },
});

const slackTemplate = (event: string, description: string, body: (c: TemplateContext, team: string) => Record<string, unknown>): Template => ({
  provider: 'slack',
  event,
  description,
  build(context) {
    return json(body(context, context.entity ?? 'T0001'), { 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)' });
  },
});

const shopifyTemplate = (topic: string, description: string, body: (c: TemplateContext) => Record<string, unknown>): Template => ({
  provider: 'shopify',
  event: topic,
  description,
  build(context) {
    const shop = context.entity ?? 'hookbench-dev.myshopify.com';
    return json(body(context), {
      'x-shopify-topic': topic,
      'x-shopify-shop-domain': shop,
      'x-shopify-api-version': '2025-01',
      'x-shopify-webhook-id': context.id,
      'x-shopify-event-id': `${context.id}-event`,
      'x-shopify-triggered-at': context.now.toISOString(),
    });
  },
});

const standardTemplate = (type: string, description: string, data: (c: TemplateContext, customer: string) => Record<string, unknown>): Template => ({
  provider: 'standard',
  event: type,
  description,
  build(context) {
    return json({ type, timestamp: context.now.toISOString(), data: data(context, context.entity ?? 'cust_8f2b1c') }, {});
  },
});

const order = (c: TemplateContext) => ({
  id: bigint('820982911946154508'),
  admin_graphql_api_id: 'gid://shopify/Order/820982911946154508',
  name: '#9999',
  order_number: 1234,
  email: 'jon@example.com',
  created_at: c.now.toISOString(),
  currency: 'USD',
  total_price: '403.00',
  subtotal_price: '393.00',
  financial_status: 'voided',
  fulfillment_status: 'pending',
  customer: { id: bigint('115310627314723954'), email: 'john@example.com', first_name: 'John', last_name: 'Smith' },
  line_items: [{ id: bigint('866550311766439020'), title: 'Aviator sunglasses', quantity: 1, price: '199.00', sku: 'SKU2006-001' }],
});

export function providerTemplates(): Template[] {
  return [
    twilioTemplate('sms.received', 'an incoming SMS', (c, account) => ({
      ToCountry: 'US',
      ToState: 'CA',
      SmsMessageSid: `SM${c.id.replace(/-/g, '').slice(0, 32)}`,
      NumMedia: '0',
      SmsSid: `SM${c.id.replace(/-/g, '').slice(0, 32)}`,
      SmsStatus: 'received',
      Body: 'Hello from Hookbench 👋',
      FromCountry: 'US',
      To: '+15005550006',
      MessageSid: `SM${c.id.replace(/-/g, '').slice(0, 32)}`,
      AccountSid: account,
      From: '+14155552671',
      ApiVersion: '2010-04-01',
    })),
    twilioTemplate('message.delivered', 'a status callback for a sent message', (c, account) => ({
      MessageStatus: 'delivered',
      SmsStatus: 'delivered',
      MessageSid: `SM${c.id.replace(/-/g, '').slice(0, 32)}`,
      SmsSid: `SM${c.id.replace(/-/g, '').slice(0, 32)}`,
      AccountSid: account,
      From: '+15005550006',
      To: '+14155552671',
      ApiVersion: '2010-04-01',
    })),
    twilioTemplate('call.completed', 'a voice call status callback', (c, account) => ({
      CallSid: `CA${c.id.replace(/-/g, '').slice(0, 32)}`,
      CallStatus: 'completed',
      CallDuration: '42',
      Direction: 'inbound',
      AccountSid: account,
      From: '+14155552671',
      To: '+15005550006',
      ApiVersion: '2010-04-01',
      Timestamp: c.now.toUTCString(),
    })),

    slackTemplate('app_mention', 'the app was mentioned in a channel', (c, team) => ({
      token: 'XXYYZZ',
      team_id: team,
      api_app_id: 'A0123ABCD',
      event: {
        type: 'app_mention',
        user: 'U061F7AUR',
        text: '<@U0LAN0Z89> is it everything a river should be?',
        ts: `${unix(c.now)}.000200`,
        channel: 'C0LAN2Q65',
        event_ts: `${unix(c.now)}.000200`,
      },
      type: 'event_callback',
      event_id: `Ev${c.id.replace(/-/g, '').slice(0, 10).toUpperCase()}`,
      event_time: unix(c.now),
      authorizations: [{ team_id: team, user_id: 'U0LAN0Z89', is_bot: true }],
    })),
    slackTemplate('message', 'a message was posted in a channel', (c, team) => ({
      token: 'XXYYZZ',
      team_id: team,
      api_app_id: 'A0123ABCD',
      event: {
        type: 'message',
        channel: 'C2147483705',
        user: 'U2147483697',
        text: 'Live long and prospect.',
        ts: `${unix(c.now)}.000200`,
        channel_type: 'channel',
      },
      type: 'event_callback',
      event_id: `Ev${c.id.replace(/-/g, '').slice(0, 10).toUpperCase()}`,
      event_time: unix(c.now),
    })),
    {
      provider: 'slack',
      event: 'slash_command',
      description: 'a slash command (form-encoded, as Slack sends it)',
      build: (c) =>
        form(
          {
            token: 'example-verification-token',
            team_id: c.entity ?? 'T0001',
            team_domain: 'example',
            channel_id: 'C2147483705',
            channel_name: 'test',
            user_id: 'U2147483697',
            user_name: 'Steve',
            command: '/weather',
            text: '94070',
            response_url: 'https://hooks.slack.com/commands/1234/5678',
            trigger_id: `${unix(c.now)}.1234.${c.id.slice(0, 8)}`,
          },
          {},
        ),
    },

    shopifyTemplate('orders/create', 'an order was created', order),
    shopifyTemplate('orders/paid', 'an order was paid', (c) => ({ ...order(c), financial_status: 'paid' })),
    shopifyTemplate('products/update', 'a product changed', (c) => ({
      id: bigint('788032119674292922'),
      title: 'Example T-Shirt',
      vendor: 'Acme',
      product_type: 'Shirts',
      updated_at: c.now.toISOString(),
      variants: [{ id: bigint('642667041472713922'), title: 'Small', price: '19.99', sku: 'example-shirt-s' }],
    })),
    shopifyTemplate('customers/create', 'a customer signed up', (c) => ({
      id: bigint('706405506930370084'),
      email: 'bob@biller.com',
      first_name: 'Bob',
      last_name: 'Biller',
      created_at: c.now.toISOString(),
      orders_count: 0,
    })),
    shopifyTemplate('app/uninstalled', 'the app was uninstalled from the shop', () => ({
      id: 548380009,
      name: 'Super Toys',
      email: 'super@supertoys.com',
      domain: null,
      myshopify_domain: 'snowdevil.myshopify.com',
    })),

    standardTemplate('invoice.paid', 'an invoice was paid', (c, customer) => ({
      id: `inv_${c.id.slice(0, 8)}`,
      customer_id: customer,
      amount: 2500,
      currency: 'eur',
    })),
    standardTemplate('user.created', 'a user signed up', (c, customer) => ({ id: `usr_${c.id.slice(0, 8)}`, customer_id: customer, email: 'ada@example.com' })),
    standardTemplate('subscription.cancelled', 'a subscription was cancelled', (c, customer) => ({
      id: `sub_${c.id.slice(0, 8)}`,
      customer_id: customer,
      reason: 'too_expensive',
    })),
  ];
}
