import { normalizeHeaders } from './headers';
import { locate } from './locate';
import { schemeFor } from './registry';
import { parseForm } from './twilio';
import type { ProviderName } from './types';

/** A body as the receiver reads it for an entity or an id: JSON, or else form fields. */
export function parsedBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return parseForm(body);
  }
}

/**
 * The entity a delivery is for, found where its provider keeps it (the repository, the customer,
 * the shop: the scheme's entity locators over the headers and the body), as the built-in worker
 * finds it; undefined when it names none.
 */
export function entityOf(provider: ProviderName, headers: Readonly<Record<string, string>>, body: Buffer): string | undefined {
  return locate(schemeFor(provider).shape.entity, normalizeHeaders(Object.entries(headers)), parsedBody(body));
}
