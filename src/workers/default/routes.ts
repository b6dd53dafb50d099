/**
 * The built-in worker's webhook routes (src/core/contract/webhookRoutes.ts):
 *   /webhooks/<provider>/<entity>   provider from the path, entity from the path
 *   /webhooks/<provider>            entity from the payload or a header
 *   /webhooks/<entity>              provider from the signature header present
 * and the same under /webhooks-queued/ (or with `X-Webhook-Mode: queued`). An entity from the path
 * is percent-decoded, then sanitized exactly like one taken from a payload or a header, so every
 * route to one entity reaches one agent: `/webhooks/github/acme%2FWidgets` and a payload's
 * `Acme/Widgets` are both `acme-widgets` (docs/runtime.md, "Entity names").
 */
import { QUEUED_WEBHOOKS_SEGMENT, WEBHOOKS_SEGMENT } from '../../core/contract/webhookRoutes';
import { detectProvider, isProviderName, schemeFor, type HeaderMap, type ProviderName } from '../../core/signing';

export interface WebhookRoute {
  /** Undefined when no signature header names a provider (the request then fails verification). */
  readonly provider: ProviderName | undefined;
  /** Undefined when it has to come from the payload or a header. */
  readonly entity: string | undefined;
  readonly queued: boolean;
}

/** The route of a request to `url`, its `headers` normalised once (src/core/signing's `normalizeHeaders`). */
export function webhookRoute(url: URL, headers: HeaderMap): WebhookRoute | undefined {
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const [base, first, second, ...rest] = segments;
  if ((base !== WEBHOOKS_SEGMENT && base !== QUEUED_WEBHOOKS_SEGMENT) || first === undefined || rest.length > 0) return undefined;
  const queued = base === QUEUED_WEBHOOKS_SEGMENT || headers['x-webhook-mode']?.toLowerCase() === 'queued';
  if (second !== undefined) return isProviderName(first) ? { provider: first, entity: fromPath(second, first), queued } : undefined;
  if (isProviderName(first)) return { provider: first, entity: undefined, queued };
  const provider = detectProvider(headers);
  return { provider, entity: fromPath(first, provider), queued };
}

/** A path segment as an entity: percent-decoded (left as written when it does not decode), then sanitized. */
function fromPath(segment: string, provider: ProviderName | undefined): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A stray "%" is part of the name.
  }
  return sanitizeEntity(decoded, provider);
}

/**
 * An entity name from a path, a payload or a header (docs/runtime.md, "Entity names"): "/" → "-",
 * lower-cased where the provider's ids ignore case (GitHub), kept where they do not (Stripe,
 * Twilio, Slack, Shopify, and a request whose provider is unknown).
 */
export function sanitizeEntity(value: string, provider: ProviderName | undefined): string {
  const name = value.replace(/\//g, '-');
  return provider && schemeFor(provider).shape.entityIgnoresCase ? name.toLowerCase() : name;
}
