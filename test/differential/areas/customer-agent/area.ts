/**
 * The customer-agent area: a billing worker as its users write it. An Agents SDK agent per
 * customer welcomes each connection with its state (sent in onConnect), answers a client's close
 * with its own code, verifies billing webhooks' HMAC with crypto.subtle.timingSafeEqual (a
 * truncated signature is workerd's TypeError), and keeps one daily cron schedule however often
 * onStart runs; a plain Durable Object greets visitors on an accept()ed WebSocket before it
 * answers the upgrade and closes with its own code (the area's date predates workerd's
 * auto-reply to close).
 */
import { createHmac } from 'node:crypto';
import type { Area, HttpStep, WebSocketStep } from '../../step';

const SECRET = 'whsec_customer_agent';
const json = { body: 'json', headers: ['content-type'] } as const;

function billing(name: string, customer: string, event: unknown, sign: (hex: string) => string = (hex) => hex): HttpStep {
  const body = JSON.stringify(event);
  const signature = sign(createHmac('sha256', SECRET).update(body).digest('hex'));
  return {
    name,
    method: 'POST',
    path: `/billing/${customer}`,
    headers: { 'content-type': 'application/json', 'x-billing-signature': signature },
    body,
    compare: { headers: ['content-type'] },
  };
}

const parsed = (frame: string): unknown => {
  try {
    return JSON.parse(frame) as unknown;
  } catch {
    return frame;
  }
};

const socket = (name: string, path: string, send: string[], frames: number, close?: WebSocketStep['close']): WebSocketStep => ({
  kind: 'ws',
  name,
  path,
  send,
  frames,
  normalize: parsed,
  ...(close ? { close } : {}),
});

export const area: Area = {
  name: 'customer-agent',
  folder: 'customer-agent',
  steps: [
    billing('a signed invoice.paid upgrades the plan', 'cus_ada', { type: 'invoice.paid', plan: 'pro' }),
    billing('a signature of the right length but wrong is 401', 'cus_ada', { type: 'invoice.paid' }, (hex) =>
      hex.replace(/^./, (c) => (c === '0' ? '1' : '0')),
    ),
    billing('a truncated signature: timingSafeEqual throws its TypeError', 'cus_ada', { type: 'invoice.paid' }, (hex) => hex.slice(0, 40)),
    billing('a subscription change', 'cus_ada', { type: 'customer.subscription.updated', plan: 'team' }),
    socket('the dashboard connects: protocol frames and the welcome with the state', '/agents/customer-agent/cus_ada', ['plan'], 5),
    socket('the dashboard closes: the agent answers with its own code', '/agents/customer-agent/cus_ada', [], 4, { code: 4100, reason: 'tab closed' }),
    socket('the customer leaves: the agent closes with 4000', '/agents/customer-agent/cus_ada', ['leave'], 4),
    socket('the support desk greets before it answers the upgrade', '/support/desk-1?visitor=ada', ['help'], 2),
    socket('a visitor closes: the desk answers with its own code', '/support/desk-1?visitor=bob', [], 1, { code: 1000, reason: 'bye' }),
    { name: 'one daily digest schedule after the first start', path: '/billing/cus_ada/schedules', compare: json },
    { name: 'a failed migration resets the agent', method: 'POST', path: '/billing/cus_ada/migrate', compare: { body: 'ignore' } },
    { name: 'onStart ran again and the schedule is still one', path: '/billing/cus_ada/schedules', compare: json },
    billing('the restarted agent kept its state', 'cus_ada', { type: 'invoice.paid' }),
  ],
};
