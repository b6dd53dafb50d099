/**
 * Stripe Billing's objects for the templates — customers, the catalog, subscriptions, invoices —
 * each typed by the stripe package (the version package.json pins), with the customer the entity.
 */
import type Stripe from 'stripe';
import { ADDRESS, DAY, IDS, list, type Scene, type Wire } from './wire';

const MONTH = 30 * DAY;

export function customer(s: Scene): Wire<Stripe.Customer> {
  return {
    id: s.customer, object: 'customer', address: ADDRESS, balance: 0, created: s.t, currency: 'usd', default_source: null, delinquent: false,
    description: null, discount: null, email: 'jenny.rosen@example.com', invoice_prefix: 'D9E2F1A7', invoice_settings: { custom_fields: null, default_payment_method: IDS.paymentMethod, footer: null, rendering_options: null },
    livemode: false, metadata: { plan: 'pro' }, name: 'Jenny Rosen', next_invoice_sequence: 2, phone: null, preferred_locales: ['en'], shipping: null, tax_exempt: 'none', test_clock: null,
  };
}

export function product(s: Scene): Wire<Stripe.Product> {
  return {
    id: IDS.product, object: 'product', active: true, created: s.t - MONTH, default_price: IDS.price, description: 'Unlimited webhooks, one seat', images: [], livemode: false,
    marketing_features: [{ name: 'Unlimited webhooks' }], metadata: {}, name: 'Pro plan', package_dimensions: null, shippable: null, statement_descriptor: null, tax_code: null,
    tax_details: null, type: 'service', unit_label: 'seat', updated: s.t, url: null,
  };
}

export function price(s: Scene): Wire<Stripe.Price> {
  return {
    id: IDS.price, object: 'price', active: true, billing_scheme: 'per_unit', created: s.t - MONTH, currency: 'usd', custom_unit_amount: null, livemode: false, lookup_key: 'pro_monthly',
    metadata: {}, nickname: 'Pro monthly', product: IDS.product, recurring: { interval: 'month', interval_count: 1, meter: null, trial_period_days: null, usage_type: 'licensed' }, tax_behavior: 'exclusive',
    tiers_mode: null, transform_quantity: null, type: 'recurring', unit_amount: 2000, unit_amount_decimal: '2000',
  };
}

function plan(s: Scene): Wire<Stripe.Plan> {
  return {
    id: IDS.price, object: 'plan', active: true, amount: 2000, amount_decimal: '2000', billing_scheme: 'per_unit', created: s.t - MONTH, currency: 'usd', interval: 'month', interval_count: 1,
    livemode: false, metadata: {}, meter: null, nickname: 'Pro monthly', product: IDS.product, tiers_mode: null, transform_usage: null, trial_period_days: null, usage_type: 'licensed',
  };
}

function subscriptionItem(s: Scene, start: number): Wire<Stripe.SubscriptionItem> {
  return {
    id: IDS.subscriptionItem, object: 'subscription_item', billing_thresholds: null, created: start, current_period_end: start + MONTH, current_period_start: start, current_trial: null, discounts: [],
    metadata: {}, plan: plan(s), price: price(s), quantity: 1, subscription: IDS.subscription, tax_rates: [],
  };
}

/** A monthly subscription; `trialing` ends its trial in three days (trial_will_end's notice). */
export function subscription(s: Scene, status: Stripe.Subscription.Status, changes: Partial<Wire<Stripe.Subscription>> = {}): Wire<Stripe.Subscription> {
  const start = status === 'trialing' ? s.t - 11 * DAY : s.t - 2 * DAY;
  const ended = status === 'canceled' ? s.t : null;
  return {
    id: IDS.subscription, object: 'subscription', application: null, application_fee_percent: null, automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: start, billing_cycle_anchor_config: null, billing_mode: { flexible: null, type: 'classic' }, billing_schedules: [], billing_thresholds: null, cancel_at: null, cancel_at_period_end: false,
    canceled_at: ended, cancellation_details: { comment: null, feedback: ended ? 'too_expensive' : null, feedback_option: null, reason: ended ? 'cancellation_requested' : null }, collection_method: 'charge_automatically',
    created: start, currency: 'usd', customer: s.customer, customer_account: null, days_until_due: null, default_payment_method: IDS.paymentMethod, default_source: null, description: null, discounts: [],
    ended_at: ended, invoice_settings: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: { type: 'self' } }, items: list([subscriptionItem(s, start)], `/v1/subscription_items?subscription=${IDS.subscription}`),
    latest_invoice: IDS.invoice, livemode: false, managed_payments: null, metadata: {}, next_pending_invoice_item_invoice: null, on_behalf_of: null,
    pause_collection: status === 'paused' ? { behavior: 'void', resumes_at: null } : null, payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
    pending_invoice_item_interval: null, pending_setup_intent: null, pending_update: null, schedule: null, start_date: start, status, test_clock: null, transfer_data: null,
    trial_end: status === 'trialing' ? s.t + 3 * DAY : null, trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' } }, trial_start: status === 'trialing' ? start : null,
    ...changes,
  };
}

export function subscriptionSchedule(s: Scene, status: Stripe.SubscriptionSchedule.Status): Wire<Stripe.SubscriptionSchedule> {
  const start = s.t + DAY;
  const phase = {
    add_invoice_items: [], application_fee_percent: null, billing_cycle_anchor: null, billing_thresholds: null, collection_method: null, currency: 'usd', default_payment_method: null, default_tax_rates: [],
    description: null, discounts: [], end_date: start + 12 * MONTH, invoice_settings: null, items: [{ billing_thresholds: null, discounts: [], metadata: {}, plan: IDS.price, price: IDS.price, quantity: 1, tax_rates: [] }],
    metadata: {}, on_behalf_of: null, proration_behavior: 'create_prorations' as const, start_date: start, transfer_data: null, trial_end: null,
  };
  return {
    id: IDS.schedule, object: 'subscription_schedule', application: null, billing_mode: { flexible: null, type: 'classic' }, canceled_at: status === 'canceled' ? s.t : null, completed_at: status === 'completed' ? s.t : null,
    created: s.t, current_phase: status === 'active' ? { end_date: phase.end_date, start_date: start } : null, customer: s.customer, customer_account: null,
    default_settings: { application_fee_percent: null, automatic_tax: { disabled_reason: null, enabled: false, liability: null }, billing_cycle_anchor: 'automatic', billing_thresholds: null, collection_method: 'charge_automatically', default_payment_method: null, description: null, invoice_settings: { account_tax_ids: null, custom_fields: null, days_until_due: null, description: null, footer: null, issuer: { type: 'self' } }, on_behalf_of: null, transfer_data: null },
    end_behavior: 'release', livemode: false, metadata: {}, pause_schedules: [], phases: [phase], released_at: null, released_subscription: null, status,
    subscription: status === 'not_started' ? null : IDS.subscription, test_clock: null,
  };
}

function invoiceLine(s: Scene, start: number): Wire<Stripe.InvoiceLineItem> {
  return {
    id: IDS.invoiceLine, object: 'line_item', amount: 2000, currency: 'usd', description: '1 seat × Pro plan (at $20.00 / month)', discount_amounts: [], discountable: true, discounts: [],
    invoice: IDS.invoice, livemode: false, metadata: {},
    parent: { invoice_item_details: null, subscription_item_details: { invoice_item: null, proration: false, proration_details: { credited_items: null }, subscription: IDS.subscription, subscription_item: IDS.subscriptionItem }, type: 'subscription_item_details' },
    period: { end: start + MONTH, start }, pretax_credit_amounts: [], pricing: { price_details: { price: IDS.price, product: IDS.product }, type: 'price_details', unit_amount_decimal: '2000' },
    quantity: 1, quantity_decimal: '1', subscription: IDS.subscription, subtotal: 2000, taxes: [],
  };
}

type InvoiceStatus = Stripe.Invoice.Status;

/** The subscription's monthly invoice of $20.00, its amounts and times as `status` leaves them. */
export function invoice(s: Scene, status: InvoiceStatus, changes: Partial<Wire<Stripe.Invoice>> = {}): Wire<Stripe.Invoice> {
  const start = s.t - 2 * DAY;
  const paid = status === 'paid';
  const finalized = status !== 'draft';
  return {
    id: IDS.invoice, object: 'invoice', account_country: 'US', account_name: 'Hookbench Demo', account_tax_ids: null, amount_due: 2000, amount_overpaid: 0, amount_paid: paid ? 2000 : 0,
    amount_remaining: paid || status === 'void' ? 0 : 2000, amount_shipping: 0, application: null, attempt_count: finalized ? 1 : 0, attempted: finalized, auto_advance: status === 'draft' || status === 'open',
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null }, automatically_finalizes_at: status === 'draft' ? s.t + 3600 : null, billing_reason: 'subscription_cycle',
    collection_method: 'charge_automatically', created: start, currency: 'usd', custom_fields: null, customer: s.customer, customer_account: null, customer_address: ADDRESS, customer_email: 'jenny.rosen@example.com',
    customer_name: 'Jenny Rosen', customer_phone: null, customer_shipping: null, customer_tax_exempt: 'none', customer_tax_ids: [], default_payment_method: null, default_source: null, default_tax_rates: [],
    description: null, discounts: [], due_date: null, effective_at: finalized ? start + 3600 : null, ending_balance: finalized ? 0 : null, footer: null, from_invoice: null,
    hosted_invoice_url: finalized ? `https://invoice.stripe.com/i/${IDS.account}/test_${IDS.invoice.slice(3)}` : null, invoice_pdf: finalized ? `https://pay.stripe.com/invoice/${IDS.account}/test_${IDS.invoice.slice(3)}/pdf` : null,
    issuer: { type: 'self' }, last_finalization_error: null, latest_revision: null, lines: list([invoiceLine(s, start)], `/v1/invoices/${IDS.invoice}/lines`), livemode: false, metadata: {},
    next_payment_attempt: status === 'open' ? s.t + 3 * DAY : null, number: finalized ? 'D9E2F1A7-0001' : null, on_behalf_of: null,
    parent: { quote_details: null, subscription_details: { metadata: {}, subscription: IDS.subscription }, type: 'subscription_details' },
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null }, period_end: start, period_start: start - MONTH, post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0, receipt_number: null, rendering: null, shipping_cost: null, shipping_details: null, starting_balance: 0, statement_descriptor: null, status,
    status_transitions: { finalized_at: finalized ? start + 3600 : null, marked_uncollectible_at: status === 'uncollectible' ? s.t : null, paid_at: paid ? s.t : null, voided_at: status === 'void' ? s.t : null },
    subtotal: 2000, subtotal_excluding_tax: 2000, test_clock: null, total: 2000, total_discount_amounts: [], total_excluding_tax: 2000, total_pretax_credit_amounts: [], total_taxes: [],
    webhooks_delivered_at: finalized ? start + 60 : null,
    ...changes,
  };
}

export function invoicePayment(s: Scene): Wire<Stripe.InvoicePayment> {
  return {
    id: IDS.invoicePayment, object: 'invoice_payment', amount_paid: 2000, amount_requested: 2000, created: s.t - 60, currency: 'usd', invoice: IDS.invoice, is_default: true, livemode: false,
    payment: { payment_intent: IDS.paymentIntent, type: 'payment_intent' }, status: 'paid', status_transitions: { canceled_at: null, paid_at: s.t },
  };
}

export function portalSession(s: Scene): Wire<Stripe.BillingPortal.Session> {
  return {
    id: IDS.portalSession, object: 'billing_portal.session', configuration: IDS.portalConfiguration, created: s.t, customer: s.customer, customer_account: null, flow: null, livemode: false,
    locale: null, on_behalf_of: null, return_url: 'https://example.com/account', url: `https://billing.stripe.com/p/session/test_${IDS.portalSession.slice(4)}`,
  };
}
