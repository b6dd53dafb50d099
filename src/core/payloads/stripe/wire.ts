/**
 * What the Stripe objects of the templates are written against: the stripe package's own types,
 * as they travel in a webhook's JSON (decimals are strings there; the SDK makes them `Decimal`).
 */
import type Stripe from 'stripe';

export type Wire<T> = T extends Stripe.Decimal
  ? string
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends readonly (infer U)[]
      ? Wire<U>[]
      : T extends object
        ? { [K in keyof T]: Wire<T[K]> }
        : T;

/** One test-mode account's world: the customer (the entity), the clock, and ids that refer to each other. */
export interface Scene {
  readonly customer: string;
  /** The event's time, in Unix seconds. */
  readonly t: number;
}

export const DAY = 86_400;

/** Ids of the objects one story shares (an invoice's charge is the charge's own id), with Stripe's prefixes. */
export const IDS = {
  account: 'acct_1QaLqzqIGXtaMPC6aZHSda0J',
  invoice: 'in_1QgjPIen2abgPeCHvyTtGHLK',
  invoiceLine: 'il_1QhPRJIRmUDSJCIqBlGMGFLw',
  invoicePayment: 'inpay_1Q4hCbavNvucKOBsgoPmlcU5',
  subscription: 'sub_1QQQEyZZ7JwuYMN89JZbKlbA',
  subscriptionItem: 'si_1QRbLfXdFF5m9to80DYcy2YS',
  schedule: 'sub_sched_1QeCgyNXLqyBuWLkmg8BFz5d',
  session: 'cs_test_a1QCCMtAQWmIvg55Nz4xLnf6PpRwYk0Zx3UqL8eHbTnD2cVs',
  paymentIntent: 'pi_3QID7Ff3IKXOOtFm1EYkyULI',
  charge: 'ch_3QID7Ff3IKXOOtFm1WHOvSC4',
  balanceTransaction: 'txn_3QID7Ff3IKXOOtFm1vnfh9y1',
  dispute: 'du_1QI8WVlEFc0aDWHNOif2vpZ6',
  refund: 're_3QID7Ff3IKXOOtFm1AIjvvdr',
  paymentMethod: 'pm_1QSHYyH1WTsSFMMl1NyCP7OG',
  setupIntent: 'seti_1QzxMnRsz1LmB17gOR1hxlnL',
  setupAttempt: 'setatt_1QzxMnRsz1LmB17gTmA4pQ2w',
  mandate: 'mandate_1QA3KKtt6ohTH6eCVCBr4sXK',
  price: 'price_1QIzXQDoSHplq6Luc75uXLvf',
  product: 'prod_RbQh65QesXJpWa',
  payout: 'po_1Qccj9NQJUu9huQK4ErMz8Pa',
  bankAccount: 'ba_1Qccj9NQJUu9huQKlq0tT8xM',
  portalSession: 'bps_1QEfLlfvLoUZRT2IgiwhU1sI',
  portalConfiguration: 'bpc_1QoiMdyPG4o092hbo7njfTRZ',
} as const;

/** Stripe's test card, as a card payment method describes it. */
export const CARD = { brand: 'visa', country: 'US', exp_month: 12, exp_year: 2034, fingerprint: 'Xt5EWLLDS7FJjR1c', funding: 'credit', last4: '4242' } as const;

export const ADDRESS = { city: 'San Francisco', country: 'US', line1: '510 Townsend Street', line2: null, postal_code: '94103', state: 'CA' };

export const BILLING_DETAILS = { address: ADDRESS, email: 'jenny.rosen@example.com', name: 'Jenny Rosen', phone: null, tax_id: null };

export const list = <T>(data: T[], url: string) => ({ object: 'list' as const, data, has_more: false, url });
