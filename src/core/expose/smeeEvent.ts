/**
 * One smee.io `message` event made into the request the local receiver gets. smee.io sends
 * `{ ...requestHeaders, body, query, timestamp }` with the body already parsed
 * (docs/expose.md, "smee.io's protocol"), so:
 * - the route is the one the user chose, never something the event says: the channel URL is a
 *   capability anyone can POST to, and the event carries no path anyway;
 * - the body is re-encoded with `JSON.stringify`; its length against the original
 *   `content-length` tells whether the bytes certainly differ from what the provider signed
 *   (`changed`) or may be identical (`same-length`). The old Express server's `rawdata`, where a
 *   relay still sends it, is the original text, and is forwarded as is (`raw`). Nothing re-signs.
 * - headers pass through except hop-by-hop and framing ones, `host`, and Hookbench's own.
 */

export type BodyState = 'raw' | 'changed' | 'same-length';

export interface ForwardRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly bodyState: BodyState;
  /** A short name for log lines: the provider's event name when a header carries one. */
  readonly label: string;
}

/** An event that is not what smee.io sends: skipped, and said so. */
export class SmeeEventError extends Error {}

/** Not forwarded: set by the HTTP client, meaningless after re-encoding, or Hookbench's own. */
const DROPPED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
  'proxy-authorization',
  'expect',
  'content-encoding',
  'accept-encoding',
]);
/** The event's own fields, besides the headers. */
const FIELDS = new Set(['body', 'query', 'timestamp', 'rawdata']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const MAX_HEADERS = 200;
const MAX_HEADER_VALUE = 16 * 1024;

function headerText(value: unknown): string | undefined {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number'
        ? String(value)
        : Array.isArray(value) && value.every((v) => typeof v === 'string')
          ? value.join(', ')
          : undefined;
  if (text === undefined || text.length > MAX_HEADER_VALUE || !HEADER_VALUE.test(text)) return undefined;
  return text;
}

function isHookbenchHeader(name: string): boolean {
  return name.startsWith('hookbench-') || name.startsWith('x-hookbench-');
}

function appendQuery(url: URL, query: unknown): void {
  if (typeof query !== 'object' || query === null || Array.isArray(query)) return;
  for (const [key, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string') url.searchParams.append(key, item);
    }
  }
}

/** The request for one event's `data`, posted to `target` (a fixed webhook route). */
export function forwardRequest(data: string, target: URL): ForwardRequest {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    throw new SmeeEventError('the event data is not JSON');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new SmeeEventError('the event data is not a JSON object');
  const fields = event as Record<string, unknown>;

  const headers: Record<string, string> = {};
  let count = 0;
  for (const [rawName, value] of Object.entries(fields)) {
    const name = rawName.toLowerCase();
    if (FIELDS.has(name) || DROPPED.has(name) || isHookbenchHeader(name) || !TOKEN.test(name)) continue;
    const text = headerText(value);
    if (text === undefined || ++count > MAX_HEADERS) continue;
    headers[name] = text;
  }
  headers['content-type'] ??= 'application/json';

  const original = Number(headerText(fields['content-length']));
  let body: Buffer;
  let bodyState: BodyState;
  if (typeof fields['rawdata'] === 'string') {
    body = Buffer.from(fields['rawdata'], 'utf8');
    bodyState = 'raw';
  } else {
    body = fields['body'] === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(fields['body']), 'utf8');
    bodyState = Number.isInteger(original) && original === body.length ? 'same-length' : 'changed';
    if (body.length === 0 && (original === 0 || Number.isNaN(original))) bodyState = 'raw';
  }

  const url = new URL(target.toString());
  appendQuery(url, fields['query']);
  const label = headers['x-github-event'] ?? headers['x-shopify-topic'] ?? (headers['stripe-signature'] ? 'stripe event' : 'event');
  return { url: url.toString(), headers, body, bodyState, label };
}
