/**
 * Stripe's templates: the common events of Billing, Payments, Checkout and Connect, each an event
 * envelope around an object typed by the stripe package that package.json pins (so `npm run check`
 * fails when a template leaves Stripe's shape), with the API version of that package. The entity
 * goes where Stripe keeps it: the object's `customer` (a customer's own id for `customer.*`), or,
 * for objects that name no customer (products, prices, payouts, the balance, disputes, invoice
 * payments, a detached payment method), the event's `account`, as a connected account's events
 * carry it.
 */
import type Stripe from 'stripe';
import { json, unix, type Template, type TemplateContext } from '../types';
import { customer, invoice, invoicePayment, portalSession, price, product, subscription, subscriptionSchedule } from './billing';
import { STRIPE_EVENTS } from './events';
import { account, balance, charge, checkoutSession, dispute, mandate, paymentIntent, paymentMethod, payout, refund, setupIntent } from './payments';
import { DAY, IDS, type Scene, type Wire } from './wire';

/** The API version of the stripe package in package.json (the test holds the two together). */
export const STRIPE_API_VERSION = '2026-10-28.endive';

export const DEFAULT_CUSTOMER = 'cus_RbQh65QesXJpWa';

type EventType = Stripe.Event['type'];
type ObjectOf<T extends EventType> = Wire<Extract<Stripe.Event, { type: T }>['data']['object']>;

interface EventSpec<T extends EventType> {
  readonly object: (s: Scene) => ObjectOf<T>;
  /** `*.updated`: the fields as they were before (Stripe's `data.previous_attributes`). */
  readonly previous?: (s: Scene) => Partial<ObjectOf<T>>;
  /** The entity is the connected account (`account` of the event), not a customer. */
  readonly byAccount?: true;
  /** Stripe raised it on its own (a renewal, a payout): `request.id` is null. */
  readonly automatic?: true;
}

const EVENTS: { readonly [T in EventType]?: EventSpec<T> } = {
  'checkout.session.completed': { object: (s) => checkoutSession(s, 'complete', 'paid') },
  'checkout.session.expired': { object: (s) => checkoutSession(s, 'expired', 'unpaid'), automatic: true },
  'checkout.session.async_payment_succeeded': { object: (s) => checkoutSession(s, 'complete', 'paid'), automatic: true },
  'checkout.session.async_payment_failed': { object: (s) => checkoutSession(s, 'complete', 'unpaid'), automatic: true },

  'customer.created': { object: customer },
  'customer.updated': { object: customer, previous: () => ({ email: 'jenny@example.com', metadata: { plan: 'starter' } }) },
  'customer.deleted': { object: customer },

  'customer.subscription.created': { object: (s) => subscription(s, 'incomplete') },
  'customer.subscription.updated': { object: (s) => subscription(s, 'active'), previous: () => ({ status: 'incomplete' }), automatic: true },
  'customer.subscription.deleted': { object: (s) => subscription(s, 'canceled') },
  'customer.subscription.trial_will_end': { object: (s) => subscription(s, 'trialing'), automatic: true },
  'customer.subscription.paused': { object: (s) => subscription(s, 'paused'), automatic: true },
  'customer.subscription.resumed': { object: (s) => subscription(s, 'active') },

  'invoice.created': { object: (s) => invoice(s, 'draft'), automatic: true },
  'invoice.finalized': { object: (s) => invoice(s, 'open'), automatic: true },
  'invoice.updated': { object: (s) => invoice(s, 'open', { description: 'Thanks for staying with us' }), previous: () => ({ description: null }) },
  'invoice.paid': { object: (s) => invoice(s, 'paid'), automatic: true },
  'invoice.payment_succeeded': { object: (s) => invoice(s, 'paid'), automatic: true },
  'invoice.payment_failed': { object: (s) => invoice(s, 'open', { attempt_count: 2 }), automatic: true },
  'invoice.payment_action_required': { object: (s) => invoice(s, 'open'), automatic: true },
  'invoice.upcoming': { object: (s) => invoice({ ...s, t: s.t + 3 * DAY }, 'draft'), automatic: true },
  'invoice.voided': { object: (s) => invoice(s, 'void') },
  'invoice.marked_uncollectible': { object: (s) => invoice(s, 'uncollectible') },
  'invoice_payment.paid': { object: invoicePayment, byAccount: true, automatic: true },

  'payment_intent.created': { object: (s) => paymentIntent(s, 'requires_payment_method') },
  'payment_intent.processing': { object: (s) => paymentIntent(s, 'processing') },
  'payment_intent.requires_action': { object: (s) => paymentIntent(s, 'requires_action') },
  'payment_intent.succeeded': { object: (s) => paymentIntent(s, 'succeeded') },
  'payment_intent.payment_failed': { object: (s) => paymentIntent(s, 'requires_payment_method', true) },
  'payment_intent.canceled': { object: (s) => paymentIntent(s, 'canceled') },

  'charge.succeeded': { object: (s) => charge(s, 'succeeded') },
  'charge.failed': { object: (s) => charge(s, 'failed') },
  'charge.captured': { object: (s) => charge(s, 'succeeded') },
  'charge.refunded': { object: (s) => charge(s, 'succeeded', { amount_refunded: 2000, refunded: true }) },
  'charge.dispute.created': { object: (s) => dispute(s, 'needs_response'), byAccount: true, automatic: true },
  'charge.dispute.closed': { object: (s) => dispute(s, 'won'), byAccount: true, automatic: true },

  'refund.created': { object: (s) => refund(s, 'pending') },
  'refund.updated': { object: (s) => refund(s, 'succeeded'), previous: () => ({ status: 'pending', balance_transaction: null }), automatic: true },
  'refund.failed': { object: (s) => refund(s, 'failed'), automatic: true },

  'payment_method.attached': { object: (s) => paymentMethod(s) },
  'payment_method.detached': { object: (s) => paymentMethod(s, 'detached'), byAccount: true },

  'setup_intent.created': { object: (s) => setupIntent(s, 'requires_payment_method') },
  'setup_intent.succeeded': { object: (s) => setupIntent(s, 'succeeded') },
  'setup_intent.setup_failed': { object: (s) => setupIntent(s, 'requires_payment_method', true) },
  'mandate.updated': { object: (s) => mandate(s, 'inactive'), previous: () => ({ status: 'active' }), byAccount: true, automatic: true },

  'price.created': { object: price, byAccount: true },
  'price.updated': { object: price, previous: () => ({ nickname: null }), byAccount: true },
  'product.created': { object: product, byAccount: true },
  'product.updated': { object: product, previous: () => ({ description: null }), byAccount: true },

  'subscription_schedule.created': { object: (s) => subscriptionSchedule(s, 'not_started') },
  'subscription_schedule.canceled': { object: (s) => subscriptionSchedule(s, 'canceled') },
  'subscription_schedule.completed': { object: (s) => subscriptionSchedule(s, 'completed'), automatic: true },

  'billing_portal.session.created': { object: portalSession },
  'payout.paid': { object: (s) => payout(s, 'paid'), byAccount: true, automatic: true },
  'payout.failed': { object: (s) => payout(s, 'failed'), byAccount: true, automatic: true },
  'balance.available': { object: balance, byAccount: true, automatic: true },
  'account.updated': { object: (s) => account(s, s.customer), previous: () => ({ payouts_enabled: false }), byAccount: true, automatic: true },
};

const hex = (id: string) => id.replace(/-/g, '');

function envelope<T extends EventType>(type: T, spec: EventSpec<T>, c: TemplateContext): Wire<Extract<Stripe.Event, { type: T }>> {
  const entity = c.entity ?? (spec.byAccount ? IDS.account : DEFAULT_CUSTOMER);
  // A connected account's event names it in `account`; its objects name no customer.
  const scene: Scene = { customer: spec.byAccount ? DEFAULT_CUSTOMER : entity, t: unix(c.now) };
  const previous = spec.previous?.(scene);
  const base: Omit<Wire<Stripe.Event>, 'data' | 'type'> = {
    id: `evt_1${hex(c.id).slice(0, 23)}`,
    object: 'event',
    ...(spec.byAccount ? { account: entity } : {}),
    api_version: STRIPE_API_VERSION,
    created: scene.t,
    livemode: false,
    pending_webhooks: 1,
    request: spec.automatic ? { id: null, idempotency_key: null } : { id: `req_${hex(c.id).slice(-14)}`, idempotency_key: c.id },
  };
  const event = { ...base, data: { object: spec.object(scene), ...(previous ? { previous_attributes: previous } : {}) }, type };
  return event as Wire<Extract<Stripe.Event, { type: T }>>;
}

function template<T extends EventType>(type: T, spec: EventSpec<T>): Template {
  return {
    provider: 'stripe',
    event: type,
    description: STRIPE_EVENTS[type] ?? type,
    build: (context) => json(envelope(type, spec, context), { 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' }),
  };
}

export function stripeTemplates(): Template[] {
  return Object.entries(EVENTS).map(([type, spec]) => template(type as EventType, spec as EventSpec<EventType>));
}
