/**
 * The built-in worker's webhook routes (docs/runtime.md, "Entity names"), declared once for the
 * worker that routes by them, the receiver that opens them to every origin, and the extension and
 * the CLI that send to them or hand them to a provider:
 *   /webhooks/<provider>/<entity>   provider and entity from the path
 *   /webhooks/<provider>            entity from the payload or a header
 *   /webhooks/<entity>              provider from the signature header present
 * and the same under /webhooks-queued/ (answered 202, stored after).
 */

/** Where `hookbench serve` listens unless told otherwise, and where the CLI sends by default. */
export const DEFAULT_RECEIVER_PORT = 8787;
export const DEFAULT_RECEIVER_URL = `http://127.0.0.1:${DEFAULT_RECEIVER_PORT}`;

/** The first path segment of a webhook route. */
export const WEBHOOKS_SEGMENT = 'webhooks';
/** The first path segment of a queued webhook route. */
export const QUEUED_WEBHOOKS_SEGMENT = 'webhooks-queued';

/** The path prefixes of every webhook route. */
export const WEBHOOK_PATHS: readonly string[] = [`/${WEBHOOKS_SEGMENT}/`, `/${QUEUED_WEBHOOKS_SEGMENT}/`];

/** `/webhooks/<provider>`, or `/webhooks/<provider>/<entity>` with the entity as one encoded segment. */
export function webhookPath(provider: string, entity?: string): string {
  return `/${WEBHOOKS_SEGMENT}/${provider}${entity ? `/${encodeURIComponent(entity)}` : ''}`;
}
