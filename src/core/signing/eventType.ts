import { normalizeHeaders } from './headers';
import { locate } from './locate';
import { isProviderName, schemeFor } from './registry';
import { parseForm } from './twilio';

/** Bodies larger than this are not parsed for their event type: the header locators still apply. */
const MAX_PARSED = 256 * 1024;

function payloadOf(body: Uint8Array): unknown {
  if (body.byteLength > MAX_PARSED) return undefined;
  const text = Buffer.from(body).toString('utf8');
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }
  const form = parseForm(body);
  const embedded = form['payload']?.[0];
  if (embedded === undefined) return form;
  try {
    return JSON.parse(embedded) as unknown;
  } catch {
    return form;
  }
}

/** What an event type may be to name a delivery: a short line (it comes from the request, and names rows and tabs). */
export const EVENT_TYPE = /^[^\p{Cc}]{1,100}$/u;

/**
 * The event type a request carries by its provider's scheme (`push`, `invoice.paid`); undefined
 * for an unknown provider, none found, or one that is not a short line of text.
 */
export function requestEventType(provider: string | null | undefined, headers: Record<string, string>, body: Uint8Array): string | undefined {
  if (!provider || !isProviderName(provider)) return undefined;
  const { shape } = schemeFor(provider);
  const header = normalizeHeaders(headers);
  // Header locators need no body: only a scheme that reads the payload parses it.
  const needsPayload = shape.eventType.some((l) => l.from === 'payload');
  const found = locate(shape.eventType, header, needsPayload ? payloadOf(body) : undefined);
  return found !== undefined && EVENT_TYPE.test(found) ? found : undefined;
}
