/**
 * Outbound webhooks from agents, in the seed's two shapes (§4.5): a chat notification (`{"text"}`)
 * and a signed JSON body (`X-Signature`: hex HMAC-SHA256 of the exact bytes sent, with a secret
 * from the environment). A response that is not ok raises an error carrying its status.
 */
import { generic } from '../signing/generic';

export class OutboundWebhookError extends Error {
  override readonly name = 'OutboundWebhookError';
  constructor(
    readonly url: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`Webhook to ${url} failed with status ${status}`);
  }
}

export interface SendOptions {
  /** Signs the body with X-Signature when given. */
  readonly secret?: string;
  readonly headers?: Record<string, string>;
  readonly fetch?: typeof fetch;
}

/** POSTs `payload` as JSON; resolves with the response, or throws OutboundWebhookError when not ok. */
export async function sendJsonWebhook(url: string, payload: unknown, options: SendOptions = {}): Promise<Response> {
  const body = Buffer.from(JSON.stringify(payload));
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.secret) Object.assign(headers, generic.sign({ secret: options.secret, body }).headers);
  const response = await (options.fetch ?? fetch)(url, { method: 'POST', headers, body });
  if (!response.ok) throw new OutboundWebhookError(url, response.status, await response.text().catch(() => ''));
  return response;
}

/** The chat-notification shape: `{"text": …}` (Slack, Discord-compatible and Teams incoming webhooks). */
export function notifyChat(url: string, text: string, options: SendOptions = {}): Promise<Response> {
  return sendJsonWebhook(url, { text }, options);
}
