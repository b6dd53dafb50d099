/**
 * The webhook-dispatcher area: a webhook bin as its users write one (wrangler.jsonc). Signed
 * deliveries with the secret read from `process.env`, a rate limit per sender (`ratelimits`),
 * one Analytics Engine data point per delivery, D1 storage (its `last_row_id` after an UPDATE and
 * its error texts), email alerts through `send_email` (a message builder and raw MIME), docs
 * fetched through `env.ASSETS` (redirects followed), the dashboard's assets with wrangler dev's
 * ETags, what the worker sees of the request (`request.cf`, `CF-Connecting-IP`, `Accept-Encoding`,
 * `navigator.userAgent`), and an uncaught exception answered as wrangler dev answers it.
 */
import { createHmac } from 'node:crypto';
import type { Area, Compare, HttpStep } from '../../step';

const SECRET = 'dispatcher-secret';
const json: Compare = { body: 'json', headers: ['content-type'] };
const asset: Compare = { body: 'text', headers: ['content-type', 'etag', 'cache-control'] };

/** The message id of an alert is random on both runtimes: only its shape is compared. */
const alertShape: Compare = {
  body: 'json',
  normalize: (body) => {
    const answer = body as { alerted?: string | null };
    return { ...answer, alerted: typeof answer.alerted === 'string' ? answer.alerted.replace(/^<[A-Za-z0-9]{36}@/, '<id@') : answer.alerted };
  },
};

function delivery(name: string, sender: string, event: unknown, extra: Record<string, string> = {}, secret = SECRET): HttpStep {
  const body = JSON.stringify(event);
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return {
    name,
    method: 'POST',
    path: `/hooks/${sender}`,
    headers: { 'content-type': 'application/json', 'x-signature': signature, ...extra },
    body,
    compare: alertShape,
  };
}

const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0' };

export const area: Area = {
  name: 'webhook-dispatcher',
  folder: 'webhook-dispatcher',
  steps: [
    { name: 'the D1 schema', path: '/api/setup', compare: { body: 'text' } },
    {
      name: 'the request as the worker sees it: process.env from vars and .dev.vars, navigator, request.cf, CF-Connecting-IP, Accept-Encoding',
      path: '/api/whoami',
      headers: { 'accept-encoding': 'deflate, zstd' },
      compare: json,
    },
    delivery('a signed delivery is stored (last_row_id 1) and counted', 'acme', { kind: 'invoice.paid', amount: 120 }),
    delivery('a wrong signature is refused', 'acme', { kind: 'invoice.paid', amount: 1 }, {}, 'wrong'),
    delivery('a large amount sends an alert through the message builder', 'acme', { kind: 'invoice.paid', amount: 5000 }),
    delivery('a large amount as raw MIME (EmailMessage)', 'globex', { kind: 'refund', amount: 2500 }, { 'x-alert-format': 'mime' }),
    delivery('the third delivery from acme within the minute is still allowed', 'acme', { kind: 'invoice.void', amount: 0 }),
    delivery('the fourth from acme is rate limited (limit 3 per 60 s)', 'acme', { kind: 'invoice.paid', amount: 7 }),
    delivery('another sender has its own count', 'initech', { kind: 'invoice.paid', amount: 9 }),
    delivery('a negative amount fails the CHECK constraint: D1 error text', 'initech', { kind: 'refund', amount: -5 }),
    { name: 'an UPDATE reports the last inserted row id, not its own', method: 'POST', path: '/hooks/acme/replay/1', compare: json },
    { name: 'an UPDATE that changes nothing', method: 'POST', path: '/hooks/acme/replay/99', compare: json },
    {
      name: 'a backlog imported in one batch',
      method: 'POST',
      path: '/api/import',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { sender: 'hooli', kind: 'invoice.paid', amount: 3 },
        { sender: 'hooli', kind: 'refund', amount: 4 },
      ]),
      compare: json,
    },
    {
      name: 'a backlog with a bad row is rolled back whole: CHECK constraint text',
      method: 'POST',
      path: '/api/import',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { sender: 'hooli', kind: 'invoice.paid', amount: 8 },
        { sender: 'hooli', kind: 'refund', amount: -8 },
      ]),
      compare: json,
    },
    { name: 'an UPDATE after the rolled-back batch reports the row id SQLite kept', method: 'POST', path: '/hooks/hooli/replay/6', compare: json },
    { name: 'the deliveries the dashboard lists', path: '/api/deliveries', compare: json },
    { name: 'a report by a column that exists', path: '/api/report?by=kind', compare: json },
    { name: 'a report by a column that does not: no such column … at offset', path: '/api/report?by=colour', compare: json },
    { name: 'a saved query with a typo: syntax error at offset', path: '/api/report?sql=SELEC%20*%20FROM%20deliveries', compare: json },
    { name: 'a saved query cut short: incomplete input', path: '/api/report?sql=SELECT%20*%20FROM%20deliveries%20WHERE', compare: json },
    { name: 'a saved query on a missing table', path: '/api/report?sql=SELECT%20*%20FROM%20payouts', compare: json },
    {
      name: 'the docs through env.ASSETS: the html_handling redirect is followed',
      path: '/api/docs/guide',
      compare: { body: 'text', headers: ['content-type', 'x-redirected', 'x-final-path'] },
    },
    { name: 'a missing docs page through env.ASSETS', path: '/api/docs/nope', compare: { status: true, headers: ['x-redirected'] } },
    { name: 'the dashboard with its ETag', path: '/', compare: asset },
    { name: 'the dashboard script with its ETag', path: '/app.js', compare: asset },
    { name: 'the guide at its canonical path', path: '/docs/guide', compare: asset },
    {
      name: 'an uncaught exception, for a browser: the HTML error page',
      path: '/api/crash',
      headers: browser,
      compare: { body: 'ignore', headers: ['content-type'] },
    },
    {
      name: 'an uncaught exception, for curl: the plain stack',
      path: '/api/crash',
      headers: { accept: '*/*', 'user-agent': 'curl/8.5.0' },
      compare: { body: 'ignore', headers: ['content-type'] },
    },
    {
      name: 'an uncaught exception, for a script asking JSON: the plain stack',
      path: '/api/crash',
      headers: { accept: 'application/json', 'user-agent': 'node' },
      compare: { body: 'ignore', headers: ['content-type'] },
    },
  ],
};
