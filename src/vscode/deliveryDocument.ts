/**
 * A delivery as one document (docs/explorer.md, "A delivery's document"): the request line, its
 * headers with credentials and signatures redacted, the body as pretty JSON, then the answer (status,
 * timing, verification, headers, body). The tab is titled by what the delivery was: "push · acme ·
 * 12:03:04"; the URI's path carries the delivery id, so a tab restored after a reload reads it again
 * from the receiver.
 */
import type { DeliveryDetails } from '../core/contract/admin';
import type { DeliverySummary } from '../core/contract/deliveries';
import { DUPLICATE_NOTE, type DeliverySource } from '../core/contract/deliveries';
import { isSecretHeader } from '../core/fixtures/fromDelivery';

/** What a redacted header shows instead of its value. */
export const REDACTED = '[redacted]';

/** Where a delivery came from, in words: "local send", "replay", "via smee", "via ngrok". */
export function sourceLabel(source: DeliverySource | undefined, publicHosts: ReadonlyMap<string, string>): string | undefined {
  switch (source?.kind) {
    case 'send':
      return 'local send';
    case 'replay':
      return 'replay';
    case 'relay':
      return `via ${source.name === 'stripe' ? 'stripe listen' : (source.name ?? 'a relay')}`;
    case 'public':
      return `via ${publicHosts.get(source.name ?? '') ?? source.name ?? 'a public host'}`;
    case 'retry':
      return `provider retry ${source.retry ?? ''}`.trim();
    default:
      return undefined;
  }
}

/** A body as pretty JSON when it is JSON, as it came otherwise. */
export function prettyBody(text: string): string {
  if (!/^\s*[[{]/.test(text)) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${isSecretHeader(name) ? REDACTED : value}`)
    .join('\n');
}

/** "12:03:04" in local time, for a tab title. */
function clock(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toTimeString().slice(0, 8);
}

/** A tab title with no "/" (it would make folders of it) and no characters a URI path must escape. */
function titlePart(text: string): string {
  return text.replace(/\//g, '∕').replace(/[?#%\\]/g, '-');
}

/** The tab title of a delivery: "push · acme · 12:03:04" (method and path when there is no event type). */
export function deliveryTitle(d: Pick<DeliverySummary, 'eventType' | 'entity' | 'method' | 'path' | 'time' | 'status'>): string {
  const what = d.eventType ?? `${d.status} ${d.method} ${decodePath(d.path)}`;
  return titlePart([what, d.entity, clock(d.time)].filter(Boolean).join(' · '));
}

/** A path with its percent-escapes decoded, as a person reads it. */
export function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The document's text. */
export function deliveryText(d: DeliveryDetails, source: string | undefined): string {
  const body = d.requestTruncated ? `${prettyBody(d.requestBody)}\n… (the log kept the first part of the body only)` : prettyBody(d.requestBody);
  const about = [
    d.provider,
    d.eventType,
    d.entity ? `entity ${d.entity}` : undefined,
    source ? `from ${source}` : 'from another client',
    d.duplicate ? DUPLICATE_NOTE : undefined,
    d.event ? `event ${d.event}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  return [
    `${d.method} ${decodePath(d.path)}`,
    headerLines(d.requestHeaders),
    '',
    body,
    '',
    `### ${d.status} · ${d.durationMs.toFixed(1)} ms · ${d.verification ?? 'no verification noted'}`,
    `# received ${d.time} · ${about}`,
    headerLines(d.responseHeaders),
    '',
    prettyBody(d.responseBody),
    '',
  ].join('\n');
}
