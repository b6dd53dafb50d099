/**
 * The answer to an exception the worker did not catch, as wrangler dev gives it (Miniflare's
 * pretty-error handler, 4.20260426.0): a 500 whose body is an HTML page showing the error and its
 * stack when the client takes HTML — its `Accept` names `text/html`, `text/*` or `*\/*` and its
 * `User-Agent` is not curl's — and the plain stack otherwise. wrangler dev renders the page with
 * Youch (source excerpts, request headers); Hookbench's page is its own, smaller one.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Whether wrangler dev would answer this client with its HTML error page. */
export function acceptsErrorPage(headers: IncomingHttpHeaders): boolean {
  const accept = (headers.accept ?? '').toLowerCase();
  const userAgent = (headers['user-agent'] ?? '').toLowerCase();
  return !userAgent.includes('curl/') && (accept.includes('text/html') || accept.includes('*/*') || accept.includes('text/*'));
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The HTML page for `error`, raised while answering `method url`. */
export function errorPage(error: unknown, method: string, url: string): string {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? (error.stack ?? `${name}: ${message}`) : String(error);
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    `<head><meta charset="utf-8"><title>${escapeHtml(`${name}: ${message}`)}</title>`,
    '<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}h1{font-size:1.4rem;color:#b00020}pre{background:#f6f6f6;padding:1rem;overflow:auto}</style></head>',
    '<body>',
    `<h1>${escapeHtml(name)}: ${escapeHtml(message)}</h1>`,
    `<p>${escapeHtml(method)} ${escapeHtml(url)}</p>`,
    `<pre>${escapeHtml(stack)}</pre>`,
    '<p>The worker threw this while answering the request; the stack is also in the Hookbench log.</p>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
