/**
 * The webhook-concurrency area: the same concurrent deliveries for one customer, sent to each
 * ledger style at once, must leave the same balance in both runtimes: a lost update where workerd
 * loses one (the input gate opened between the read and the write), none where it loses none.
 * This is what `hookbench chaos --perturb concurrent` relies on (docs/chaos.md). A handler that
 * reads its state, then the request body, then writes is left out: whether workerd lets another
 * delivery in while that body streams depends on when each request reaches the object, so neither
 * runtime gives one answer to compare (docs/runtime.md, "Concurrency").
 */
import { createHmac } from 'node:crypto';
import type { Area, BurstStep, HttpStep } from '../../step';

/** The secret in the area's .dev.vars, which both runtimes read. */
const SECRET = 'ledger-test-secret';

const STYLES = ['sync', 'api', 'rate-first', 'storage', 'microtask', 'digest', 'guarded', 'sql'] as const;

/** A payment of 10, signed as the generic provider signs (X-Signature: hex HMAC-SHA256 of the body). */
const payment = (style: string, customer: string, id: string): HttpStep => {
  const body = JSON.stringify({ id, amount: 10 });
  return {
    name: `payment ${id}`,
    method: 'POST',
    path: `/webhooks/${style}/${customer}`,
    headers: { 'content-type': 'application/json', 'x-signature': createHmac('sha256', SECRET).update(body).digest('hex') },
    body,
  };
};

/** `count` payments for one customer, all sent before any answer is read. */
const burst = (style: string, customer: string, count: number): BurstStep => ({
  kind: 'burst',
  name: `${count} payments at once to a ${style} ledger`,
  steps: Array.from({ length: count }, (_, i) => payment(style, customer, `${customer}-${i + 1}`)),
});

const balance = (style: string, customer: string, sent: number): HttpStep => ({
  name: `the ${style} ledger's balance after ${sent} payments`,
  path: `/ledger/${style}/${customer}`,
  compare: { body: 'json' },
});

export const area: Area = {
  name: 'webhook-concurrency',
  folder: 'webhook-concurrency',
  steps: [
    // One delivery alone first: the agent exists, its onStart has run, in both runtimes.
    ...STYLES.flatMap((style) => [payment(style, 'warm', 'warm-1'), balance(style, 'warm', 1)]),
    ...STYLES.flatMap((style) => [
      burst(style, 'pair', 2),
      balance(style, 'pair', 2),
      burst(style, 'crowd', 5),
      balance(style, 'crowd', 5),
      burst(style, 'warm', 3),
      balance(style, 'warm', 4),
    ]),
    {
      ...payment('sync', 'warm', 'forged'),
      name: 'a payment with a wrong signature is refused',
      headers: { 'content-type': 'application/json', 'x-signature': '00' },
    },
  ],
};
