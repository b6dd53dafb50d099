/**
 * The built-in worker's webhook routes (DESIGN §3.2, seed §4.2):
 *   /webhooks/<provider>/<entity>   provider from the path, entity from the path
 *   /webhooks/<provider>            entity from the payload or a header
 *   /webhooks/<entity>              provider from the signature header present
 * and the same under /webhooks-queued/ (or with `X-Webhook-Mode: queued`). Path segments are
 * used as written, never URL-decoded, like agent names in routeAgentRequest.
 */
import { detectProvider, isProviderName, normalizeHeaders, type ProviderName } from '../../core/signing';

export interface WebhookRoute {
  /** Undefined when no signature header names a provider (the request then fails verification). */
  readonly provider: ProviderName | undefined;
  /** Undefined when it has to come from the payload or a header. */
  readonly entity: string | undefined;
  readonly queued: boolean;
}

export function webhookRoute(url: URL, headers: Headers): WebhookRoute | undefined {
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const [base, first, second, ...rest] = segments;
  if ((base !== 'webhooks' && base !== 'webhooks-queued') || first === undefined || rest.length > 0) return undefined;
  const queued = base === 'webhooks-queued' || headers.get('x-webhook-mode')?.toLowerCase() === 'queued';
  if (second !== undefined) return isProviderName(first) ? { provider: first, entity: second, queued } : undefined;
  if (isProviderName(first)) return { provider: first, entity: undefined, queued };
  return { provider: detectProvider(normalizeHeaders(headers.entries())), entity: first, queued };
}

/** Entity names derived from payloads: lower case, "/" → "-" (seed §4.2 rule 3). */
export function sanitizeEntity(value: string): string {
  return value.toLowerCase().replace(/\//g, '-');
}
