/**
 * The built-in worker's checks on a delivery, in one order (octokit's pipeline): provider →
 * signature on the raw bytes → payload parse. The router runs them before any agent exists, so a
 * rejected request (401, 400) creates no instance. The agent checks too, as a Durable Object must
 * not trust whoever calls it; when the router's check rode along on the very same Request (in
 * this process), the agent takes it instead of verifying and parsing the bytes a second time.
 */
import { schemeFor, type ProviderName } from '../../core/signing';
import { normalizeHeaders } from '../../core/signing';
import { parsePayload, type ParsedPayload } from './payload';
import { verificationNote, type Verdict } from '../../core/contract/notes';
import { textResponse } from './responses';
import type { WebhookRoute } from './routes';

export interface CheckEnv {
  /** The public URL Twilio signs when the receiver sits behind a tunnel. */
  readonly HOOKBENCH_PUBLIC_URL?: string;
  readonly [secret: string]: unknown;
}

export type CheckResult =
  | { readonly ok: true; readonly provider: ProviderName; readonly body: Uint8Array; readonly parsed: ParsedPayload }
  | { readonly ok: false; readonly response: Response };

/**
 * The router's passed check, on the Request it hands the agent. A symbol-keyed property: nothing
 * from the wire can set it, and on Cloudflare, where the request reaches the Durable Object
 * serialized, it is simply absent and the agent checks for itself.
 */
const CHECKED = Symbol.for('hookbench.checkedDelivery');

type Passed = Extract<CheckResult, { ok: true }>;

/** Keeps a passed check on `request` for the agent it is handed to. */
export function rememberCheck(request: Request, checked: Passed): void {
  Object.defineProperty(request, CHECKED, { value: checked, enumerable: false, configurable: true });
}

/** The check the router made on this very request, if it made one. */
export function checkedBefore(request: Request): Passed | undefined {
  return (request as unknown as Record<symbol, Passed | undefined>)[CHECKED];
}

/** The URL the provider signed: a configured public URL, or what a tunnel forwarded, or the request's. */
export function signedUrl(request: Request, env: CheckEnv): string {
  const url = new URL(request.url);
  if (env.HOOKBENCH_PUBLIC_URL) return new URL(url.pathname + url.search, env.HOOKBENCH_PUBLIC_URL).toString();
  const proto = request.headers.get('x-forwarded-proto');
  const host = request.headers.get('x-forwarded-host');
  if (proto || host) return `${proto ?? url.protocol.slice(0, -1)}://${host ?? url.host}${url.pathname}${url.search}`;
  return request.url;
}

/** Notes for the deliveries log about a rejected request; never the secret or the signature. */
function rejected(provider: string, entity: string | undefined, verdict: Extract<Verdict, { readonly valid: false }>): Response {
  const reason = verificationNote(verdict);
  console.warn(`[security] rejected a ${provider} webhook${entity === undefined ? '' : ` for ${entity}`}: ${reason}`);
  return textResponse('Invalid signature', 401, { provider, entity, verification: reason });
}

/** Verifies and parses `body` (the request's raw bytes) for `route`; `entity` only names it in the notes. */
export function checkDelivery(route: WebhookRoute, request: Request, body: Uint8Array, env: CheckEnv, entity: string | undefined): CheckResult {
  if (!route.provider) {
    return { ok: false, response: rejected('unknown', entity, { valid: false, reason: 'missing_header', message: 'no provider signature header (X-Hub-Signature-256, Stripe-Signature, ...)' }) };
  }
  const scheme = schemeFor(route.provider);
  const secret = env[scheme.shape.secretEnv];
  const headers = normalizeHeaders(request.headers.entries());
  const verdict = scheme.verify({ secret: typeof secret === 'string' ? secret : undefined, body, headers, url: signedUrl(request, env) });
  if (!verdict.valid) return { ok: false, response: rejected(route.provider, entity, verdict) };
  try {
    return { ok: true, provider: route.provider, body, parsed: parsePayload(body, request.headers.get('content-type')) };
  } catch {
    return { ok: false, response: textResponse('Invalid', 400, { provider: route.provider, entity, verification: verificationNote({ valid: true }) }) };
  }
}
