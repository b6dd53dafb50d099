/**
 * The built-in worker's checks on a delivery, in one order (octokit's pipeline): provider →
 * signature on the raw bytes → payload parse. The router runs them before any agent exists, so a
 * rejected request (401, 400) creates no instance. The agent checks too, as a Durable Object must
 * not trust whoever calls it; when the router's check rode along on the very same Request (the
 * delivery channel, src/core/contract/notes.ts), the agent takes it — the route, the headers
 * normalised, the verified bytes and the parsed payload — instead of working any of it out again.
 */
import { deliveryChannel, verificationNote, type Verdict } from '../../core/contract/notes';
import { normalizeHeaders, schemeFor, type HeaderMap, type ProviderName } from '../../core/signing';
import { parsePayload, type ParsedPayload } from './payload';
import { textResponse } from './responses';
import { webhookRoute, type WebhookRoute } from './routes';

export interface CheckEnv {
  /** The public URL Twilio signs when the receiver sits behind a tunnel. */
  readonly HOOKBENCH_PUBLIC_URL?: string;
  readonly [secret: string]: unknown;
}

/** A request to a webhook route: its URL parsed and its headers normalised, once. */
export interface WebhookRequest {
  readonly url: URL;
  readonly headers: HeaderMap;
  readonly route: WebhookRoute;
}

export type CheckResult =
  | { readonly ok: true; readonly request: WebhookRequest; readonly provider: ProviderName; readonly body: Uint8Array; readonly parsed: ParsedPayload }
  | { readonly ok: false; readonly response: Response };

type Passed = Extract<CheckResult, { ok: true }>;

/** The route `request` takes, with what finding it took; undefined when it is no webhook route. */
export function webhookRequest(request: Request): WebhookRequest | undefined {
  const url = new URL(request.url);
  const headers = normalizeHeaders(request.headers.entries());
  const route = webhookRoute(url, headers);
  return route ? { url, headers, route } : undefined;
}

/** Keeps a passed check on `request` for the agent it is handed to. */
export function rememberCheck(request: Request, checked: Passed): void {
  const channel = deliveryChannel(request);
  if (channel) channel.checked = checked;
}

/** The check the router made on this very request, if it made one. */
export function checkedBefore(request: Request): Passed | undefined {
  const checked = deliveryChannel(request)?.checked as Passed | undefined;
  return checked?.ok === true ? checked : undefined;
}

/** The URL the provider signed: a configured public URL, or what a tunnel forwarded, or the request's. */
function signedUrl(request: Request, { url, headers }: WebhookRequest, env: CheckEnv): string {
  if (env.HOOKBENCH_PUBLIC_URL) return new URL(url.pathname + url.search, env.HOOKBENCH_PUBLIC_URL).toString();
  const proto = headers['x-forwarded-proto'];
  const host = headers['x-forwarded-host'];
  if (proto || host) return `${proto ?? url.protocol.slice(0, -1)}://${host ?? url.host}${url.pathname}${url.search}`;
  return request.url;
}

/** Notes for the deliveries log about a rejected request; never the secret or the signature. */
function rejected(request: Request, provider: string, entity: string | undefined, verdict: Extract<Verdict, { readonly valid: false }>): Response {
  const reason = verificationNote(verdict);
  console.warn(`[security] rejected a ${provider} webhook${entity === undefined ? '' : ` for ${entity}`}: ${reason}`);
  return textResponse(request, 'Invalid signature', 401, { provider, entity, verification: reason });
}

/** Verifies and parses `body` (the request's raw bytes) for its route; `entity` only names it in the notes. */
export function checkDelivery(request: Request, webhook: WebhookRequest, body: Uint8Array, env: CheckEnv, entity: string | undefined): CheckResult {
  const { provider } = webhook.route;
  if (!provider) {
    return {
      ok: false,
      response: rejected(request, 'unknown', entity, {
        valid: false,
        reason: 'missing_header',
        message: 'no provider signature header (X-Hub-Signature-256, Stripe-Signature, ...)',
      }),
    };
  }
  const scheme = schemeFor(provider);
  const secret = env[scheme.shape.secretEnv];
  const verdict = scheme.verify({
    secret: typeof secret === 'string' ? secret : undefined,
    body,
    headers: webhook.headers,
    url: signedUrl(request, webhook, env),
  });
  if (!verdict.valid) return { ok: false, response: rejected(request, provider, entity, verdict) };
  try {
    return { ok: true, request: webhook, provider, body, parsed: parsePayload(body, webhook.headers['content-type'] ?? null) };
  } catch {
    return { ok: false, response: textResponse(request, 'Invalid', 400, { provider, entity, verification: verificationNote({ valid: true }) }) };
  }
}
