/**
 * Stripe Payments' objects for the templates — Checkout, payment and setup intents, charges,
 * disputes, refunds, payment methods, mandates — and the account's own (payouts, balance, the
 * account), each typed by the stripe package, with the customer the entity where Stripe keeps one.
 */
import type Stripe from 'stripe';
import { BILLING_DETAILS, CARD, DAY, IDS, type Scene, type Wire } from './wire';

const AMOUNT = 2000;
const DESCRIPTION = 'Order #1042';

const declined = { advice_code: 'try_again_later', code: 'card_declined', decline_code: 'insufficient_funds', doc_url: 'https://docs.stripe.com/error-codes/card-declined', message: 'Your card has insufficient funds.', type: 'card_error' as const };

export function checkoutSession(s: Scene, status: Stripe.Checkout.Session.Status, paymentStatus: Stripe.Checkout.Session.PaymentStatus): Wire<Stripe.Checkout.Session> {
  const complete = status === 'complete';
  return {
    id: IDS.session, object: 'checkout.session', adaptive_pricing: { enabled: true }, after_expiration: null, allow_promotion_codes: null, allowed_payment_method_types: null,
    amount_subtotal: AMOUNT, amount_total: AMOUNT, automatic_tax: { enabled: false, liability: null, provider: null, status: null }, billing_address_collection: null,
    cancel_url: 'https://example.com/cart', client_reference_id: 'order_1042', client_secret: null, collected_information: null, consent: null, consent_collection: null, created: s.t - 600,
    currency: 'usd', currency_conversion: null, custom_fields: [], custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: s.customer, customer_account: null, customer_creation: 'if_required',
    customer_details: complete ? { address: BILLING_DETAILS.address, business_name: null, email: BILLING_DETAILS.email, individual_name: null, name: BILLING_DETAILS.name, phone: null, tax_exempt: 'none', tax_ids: [] } : null,
    customer_email: null, discounts: [], expires_at: s.t - 600 + DAY, integration_identifier: null, invoice: null, invoice_creation: { enabled: false, invoice_data: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: null, metadata: {}, rendering_options: null } },
    livemode: false, locale: null, managed_payments: null, metadata: { order: '1042' }, mode: 'payment', origin_context: null, payment_intent: status === 'expired' ? null : IDS.paymentIntent, payment_link: null,
    payment_method_collection: 'if_required', payment_method_configuration_details: null, payment_method_options: { card: { request_three_d_secure: 'automatic' } }, payment_method_types: ['card'],
    payment_status: paymentStatus, permissions: null, phone_number_collection: { enabled: false }, recovered_from: null, saved_payment_method_options: null, setup_intent: null,
    shipping_address_collection: null, shipping_cost: null, shipping_options: [], status, submit_type: null, subscription: null, success_url: 'https://example.com/thanks?session_id={CHECKOUT_SESSION_ID}',
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 }, ui_mode: 'hosted', url: complete || status === 'expired' ? null : `https://checkout.stripe.com/c/pay/${IDS.session}`, wallet_options: null,
  };
}

export function paymentIntent(s: Scene, status: Stripe.PaymentIntent.Status, failed = false): Wire<Stripe.PaymentIntent> {
  const succeeded = status === 'succeeded';
  return {
    id: IDS.paymentIntent, object: 'payment_intent', allowed_payment_method_types: null, amount: AMOUNT, amount_capturable: 0, amount_details: { tip: {} }, amount_received: succeeded ? AMOUNT : 0, application: null,
    application_fee_amount: null, automatic_payment_methods: { allow_redirects: 'always', enabled: true }, canceled_at: status === 'canceled' ? s.t : null, cancellation_reason: status === 'canceled' ? 'abandoned' : null,
    capture_method: 'automatic_async', client_secret: `${IDS.paymentIntent}_secret_Hb7Qm2xKpL0vZ9cRtY4eWnD8s`, confirmation_method: 'automatic', created: s.t - 30, currency: 'usd', customer: s.customer, customer_account: null,
    description: DESCRIPTION, excluded_payment_method_types: null, last_payment_error: failed ? { ...declined, charge: IDS.charge, payment_method: paymentMethod(s, 'card') } : null, latest_charge: status === 'requires_payment_method' && !failed ? null : IDS.charge,
    livemode: false, managed_payments: null, metadata: { order: '1042' },
    next_action: status === 'requires_action' ? { redirect_to_url: { return_url: 'https://example.com/return', url: `https://hooks.stripe.com/3d_secure_2/hosted?merchant=${IDS.account}&payment_intent=${IDS.paymentIntent}` }, type: 'redirect_to_url' } : null,
    on_behalf_of: null, payment_method: failed || status === 'requires_payment_method' || status === 'canceled' ? null : IDS.paymentMethod, payment_method_configuration_details: null,
    payment_method_options: { card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' } }, payment_method_types: ['card'], payment_record: null, processing: null,
    receipt_email: null, review: null, setup_future_usage: null, shipping: null, source: null, statement_descriptor: null, statement_descriptor_suffix: null, status, transfer_group: null,
  };
}

/** A charge of the payment intent; `refunded` is refunded in full. */
export function charge(s: Scene, status: Stripe.Charge.Status, changes: Partial<Wire<Stripe.Charge>> = {}): Wire<Stripe.Charge> {
  const ok = status === 'succeeded';
  return {
    id: IDS.charge, object: 'charge', amount: AMOUNT, amount_captured: ok ? AMOUNT : 0, amount_refunded: 0, application: null, application_fee: null, application_fee_amount: null,
    balance_transaction: ok ? IDS.balanceTransaction : null, billing_details: BILLING_DETAILS, calculated_statement_descriptor: 'HOOKBENCH DEMO', captured: ok, created: s.t, currency: 'usd', customer: s.customer,
    description: DESCRIPTION, disputed: false, failure_balance_transaction: null, failure_code: status === 'failed' ? declined.code : null, failure_message: status === 'failed' ? declined.message : null,
    fraud_details: {}, livemode: false, metadata: { order: '1042' },
    on_behalf_of: null, outcome: { advice_code: null, network_advice_code: null, network_decline_code: null, network_status: ok ? 'approved_by_network' : 'declined_by_network', reason: ok ? null : 'insufficient_funds', risk_level: 'normal', risk_score: 12, seller_message: ok ? 'Payment complete.' : 'The bank declined the payment.', type: ok ? 'authorized' : 'issuer_declined' },
    paid: ok, payment_intent: IDS.paymentIntent, payment_method: IDS.paymentMethod,
    payment_method_details: { card: { amount_authorized: ok ? AMOUNT : null, authorization_code: ok ? '581957' : null, ...CARD, checks: { address_line1_check: 'pass', address_postal_code_check: 'pass', cvc_check: 'pass' }, electronic_commerce_indicator: null, installments: null, mandate: null, network: 'visa', network_token: { used: false }, network_transaction_id: '584120617893510', regulated_status: 'unregulated', three_d_secure: null, transaction_link_id: null, wallet: null }, type: 'card' },
    receipt_email: BILLING_DETAILS.email, receipt_number: null, receipt_url: ok ? `https://pay.stripe.com/receipts/payment/test_${IDS.charge.slice(3)}` : null, refunded: false, review: null, shipping: null, source: null,
    source_transfer: null, statement_descriptor: null, statement_descriptor_suffix: null, status, transfer_data: null, transfer_group: null,
    ...changes,
  };
}

export function dispute(s: Scene, status: Stripe.Dispute.Status): Wire<Stripe.Dispute> {
  const closed = status === 'won' || status === 'lost';
  return {
    id: IDS.dispute, object: 'dispute', amount: AMOUNT, balance_transactions: [], charge: IDS.charge, created: s.t - (closed ? 20 * DAY : 0), currency: 'usd', enhanced_eligibility_types: [],
    evidence: {
      access_activity_log: null, billing_address: null, cancellation_policy: null, cancellation_policy_disclosure: null, cancellation_rebuttal: null, customer_communication: null, customer_email_address: BILLING_DETAILS.email,
      customer_name: BILLING_DETAILS.name, customer_purchase_ip: null, customer_signature: null, duplicate_charge_documentation: null, duplicate_charge_explanation: null, duplicate_charge_id: null,
      enhanced_evidence: {}, product_description: closed ? 'One Pro plan seat, billed monthly' : null, receipt: null, refund_policy: null, refund_policy_disclosure: null, refund_refusal_explanation: null,
      service_date: null, service_documentation: null, shipping_address: null, shipping_carrier: null, shipping_date: null, shipping_documentation: null, shipping_tracking_number: null,
      uncategorized_file: null, uncategorized_text: null,
    },
    evidence_details: { due_by: s.t + 7 * DAY, enhanced_eligibility: {}, has_evidence: closed, past_due: false, submission_count: closed ? 1 : 0, submission_method: closed ? 'manual' : 'not_submitted' }, intended_submission_method: null,
    is_charge_refundable: !closed, livemode: false, metadata: {}, payment_intent: IDS.paymentIntent,
    payment_method_details: { card: { brand: CARD.brand, case_type: 'chargeback', network: 'visa', network_reason_code: '10.4' }, type: 'card' }, reason: 'fraudulent', status,
  };
}

export function refund(s: Scene, status: 'pending' | 'succeeded' | 'failed'): Wire<Stripe.Refund> {
  return {
    id: IDS.refund, object: 'refund', amount: AMOUNT, balance_transaction: status === 'pending' ? null : IDS.balanceTransaction, charge: IDS.charge, created: s.t, currency: 'usd', customer: s.customer,
    customer_account: null, destination_details: { card: { reference_status: 'pending', reference_type: 'acquirer_reference_number', type: 'refund' }, type: 'card' },
    failure_reason: status === 'failed' ? 'expired_or_canceled_card' : undefined, metadata: {}, payment_intent: IDS.paymentIntent, payment_method: IDS.paymentMethod, reason: 'requested_by_customer', receipt_number: null,
    source_transfer_reversal: null, status, transfer_reversal: null,
  };
}

/** The customer's test Visa; `detached` is no one's any more. */
export function paymentMethod(s: Scene, owner: 'card' | 'detached' = 'card'): Wire<Stripe.PaymentMethod> {
  return {
    id: IDS.paymentMethod, object: 'payment_method', allow_redisplay: 'always', billing_details: BILLING_DETAILS,
    card: { ...CARD, checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' }, display_brand: 'visa', generated_from: null, networks: { available: ['visa'], preferred: null }, regulated_status: 'unregulated', three_d_secure_usage: { supported: true }, wallet: null },
    created: s.t - 60, customer: owner === 'detached' ? null : s.customer, customer_account: null, livemode: false, metadata: {}, type: 'card',
  };
}

export function setupIntent(s: Scene, status: Stripe.SetupIntent.Status, failed = false): Wire<Stripe.SetupIntent> {
  return {
    id: IDS.setupIntent, object: 'setup_intent', allowed_payment_method_types: null, application: null, automatic_payment_methods: { allow_redirects: 'always', enabled: true }, cancellation_reason: null,
    client_secret: `${IDS.setupIntent}_secret_Rk2cWq8vNn4TzJ0bLhY6uPd1e`, created: s.t - 30, customer: s.customer, customer_account: null, description: null, excluded_payment_method_types: null, flow_directions: null,
    last_setup_error: failed ? { ...declined, payment_method: paymentMethod(s, 'detached') } : null, latest_attempt: status === 'requires_payment_method' && !failed ? null : IDS.setupAttempt, livemode: false,
    mandate: status === 'succeeded' ? IDS.mandate : null, metadata: {}, next_action: null, on_behalf_of: null, payment_method: status === 'succeeded' ? IDS.paymentMethod : null,
    payment_method_configuration_details: null, payment_method_options: { card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' } }, payment_method_types: ['card'],
    single_use_mandate: null, status, usage: 'off_session',
  };
}

export function mandate(s: Scene, status: Stripe.Mandate.Status): Wire<Stripe.Mandate> {
  return {
    id: IDS.mandate, object: 'mandate', customer_acceptance: { accepted_at: s.t - DAY, offline: undefined, online: { ip_address: '203.0.113.7', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)' }, type: 'online' },
    livemode: false, multi_use: {}, payment_method: IDS.paymentMethod, payment_method_details: { card: {}, type: 'card' }, status, type: 'multi_use',
  };
}

export function payout(s: Scene, status: 'paid' | 'failed'): Wire<Stripe.Payout> {
  const failed = status === 'failed';
  return {
    id: IDS.payout, object: 'payout', amount: 184_230, application_fee: null, application_fee_amount: null, arrival_date: s.t, automatic: true, balance_transaction: IDS.balanceTransaction, created: s.t - 2 * DAY,
    currency: 'usd', description: 'STRIPE PAYOUT', destination: IDS.bankAccount, failure_balance_transaction: failed ? IDS.balanceTransaction : null, failure_code: failed ? 'account_closed' : null,
    failure_message: failed ? 'The bank account has been closed.' : null, livemode: false, metadata: {}, method: 'standard', original_payout: null, payout_method: null,
    reconciliation_status: failed ? 'not_applicable' : 'completed', reversed_by: null, source_type: 'card', statement_descriptor: null, status, trace_id: failed ? null : { status: 'supported', value: 'HB2026110400018' }, type: 'bank_account',
  };
}

export function balance(): Wire<Stripe.Balance> {
  return {
    object: 'balance', available: [{ amount: 184_230, currency: 'usd', source_types: { card: 184_230 } }], livemode: false,
    pending: [{ amount: 4_100, currency: 'usd', source_types: { card: 4_100 } }],
  };
}

/** A connected account (the entity: Stripe puts a connected account's id in the event's `account`). */
export function account(s: Scene, id: string): Wire<Stripe.Account> {
  return {
    id, object: 'account', business_profile: { annual_revenue: null, estimated_worker_count: null, mcc: '5734', minority_owned_business_designation: null, name: 'Acme Widgets', product_description: null, support_address: null, support_email: null, support_phone: null, support_url: null, specified_commercial_transactions_act_url: null, url: 'https://acme.example.com' },
    business_type: 'company', charges_enabled: true, country: 'US', created: s.t - 90 * DAY, default_currency: 'usd', details_submitted: true, email: 'ops@acme.example.com', payouts_enabled: true,
    requirements: { alternatives: [], current_deadline: null, currently_due: [], disabled_reason: null, errors: [], eventually_due: [], past_due: [], pending_verification: [] }, type: 'express',
  };
}
