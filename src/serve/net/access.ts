/**
 * Who may talk to the serve process's non-webhook surfaces (agents routes, WebSockets, the admin
 * API, the sink, the render emulator). Browsers apply no CORS to WebSockets and a DNS-rebinding
 * page is "same origin" with whatever its name resolves to, so the `Origin` and `Host` headers
 * are checked here, before any handler runs (docs/security.md):
 * - no `Origin`: a non-browser client (curl, a provider, the extension, an agents SDK client in
 *   Node) or a browser's same-origin navigation; then the `Host` must name this machine;
 * - an `Origin` must be loopback (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`,
 *   `*.localhost`), one of VS Code's own (`vscode-webview://…`, `vscode-file://vscode-app`), or
 *   one the user allowed;
 * - a `Host` must be loopback, the address the server was bound to, or one the user allowed.
 * - the connection must come from the user who runs serve, where the platform can tell
 *   (localPeer.ts): another user of the machine reaches nothing but the webhook routes; where it
 *   cannot, `--require-token` asks every loopback client for the admin token (localCredential.ts).
 * Webhook routes stay open to every origin, host and user: providers and relays post there, and
 * the signature is the guard.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Peer } from './localPeer';
import { ADMIN_PREFIX, adminRoutesAt } from '../../core/contract/admin';
import { WEBHOOK_PATHS } from '../../core/contract/webhookRoutes';

export interface AccessPolicy {
  /** Origins allowed besides loopback and VS Code's, as `scheme://host[:port]`. */
  readonly origins: readonly string[];
  /** Host names allowed besides loopback names (a tunnel's public host, a LAN name). */
  readonly hosts: readonly string[];
  /** Path prefixes open to any origin and host (the webhook routes). */
  readonly openPaths: readonly string[];
  /**
   * `serve --require-token`: the admin token a loopback client must show where the platform
   * cannot name its user (localCredential.ts); undefined to let such clients in as the owner.
   */
  readonly requireToken?: string;
}

/** Open by default: the built-in worker's webhook routes; a user's worker may add its own with --webhook-path. */
export const DEFAULT_POLICY: AccessPolicy = { origins: [], hosts: [], openPaths: WEBHOOK_PATHS };

/** A refusal says what was refused (`reason`, logged) and the 403's whole text (`answer`). */
export type AccessVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string; readonly answer: string };

const ALLOWED: AccessVerdict = { allowed: true };

/** Loopback host names: Chromium, Firefox and curl resolve `*.localhost` to loopback themselves. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '[::1]' || name === '::1') return true;
  return /^127(?:\.\d{1,3}){3}$/.test(name);
}

/** The host name of a Host header value (`name:port`, `[v6]:port`), lower-cased. */
export function hostnameOf(hostHeader: string): string {
  const trimmed = hostHeader.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(0, trimmed.indexOf(']') + 1);
  const colon = trimmed.lastIndexOf(':');
  return colon < 0 ? trimmed : trimmed.slice(0, colon);
}

/** `scheme://host[:port]` for comparison, or undefined when the text is not an origin. */
export function normalizeOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.origin !== 'null') return url.origin.toLowerCase();
    // Custom schemes (vscode-webview:, vscode-file:) have an opaque origin in WHATWG URL terms.
    return `${url.protocol}//${url.host}`.toLowerCase();
  } catch {
    return undefined;
  }
}

function originAllowed(origin: string, policy: AccessPolicy): boolean {
  const normal = normalizeOrigin(origin);
  if (!normal) return false;
  const url = new URL(normal);
  if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)) return true;
  // VS Code's webviews and its desktop workbench.
  if (url.protocol === 'vscode-webview:') return true;
  if (normal === 'vscode-file://vscode-app') return true;
  return policy.origins.some((allowed) => normalizeOrigin(allowed) === normal);
}

function hostAllowed(hostHeader: string | undefined, boundHost: string, policy: AccessPolicy): boolean {
  // HTTP/1.0 clients send no Host; browsers always do.
  if (hostHeader === undefined || hostHeader === '') return true;
  const name = hostnameOf(hostHeader);
  if (isLoopbackHost(name)) return true;
  const bound = boundHost.toLowerCase();
  if (bound !== '0.0.0.0' && bound !== '::' && (name === bound || name === `[${bound}]`)) return true;
  return policy.hosts.some((allowed) => allowed.toLowerCase() === name);
}

/** Whether a path is one of the open webhook routes. */
export function isOpenPath(pathname: string, policy: AccessPolicy): boolean {
  return policy.openPaths.some((prefix) => pathname.startsWith(prefix) || pathname === prefix.replace(/\/$/, ''));
}

/** Whether a request must pass the checks below: every upgrade (a WebSocket carries no signature), and every non-webhook route. */
export function isGuarded(pathname: string, policy: AccessPolicy, upgrade: boolean): boolean {
  return upgrade || !isOpenPath(pathname, policy);
}

/** Whether the admin route table says `pathname` is open without any token (auth `none`). */
function asksNoToken(pathname: string): boolean {
  return pathname.startsWith(ADMIN_PREFIX) && adminRoutesAt(pathname).some(({ route }) => route.auth === 'none');
}

/** Why a peer may not reach a guarded route, or undefined when it may. */
function peerRefusal(peer: Peer | undefined, policy: AccessPolicy, credential: boolean): string | undefined {
  if (peer?.kind === 'other-user') return `another user of this machine (uid ${peer.uid}) may reach only the webhook routes`;
  if (peer?.kind === 'unknown') return "the connection's owner could not be read from /proc/net/tcp";
  if (peer?.kind === 'unverified' && policy.requireToken !== undefined && !credential) return 'serve runs with --require-token and this request shows no token';
  return undefined;
}

/**
 * The verdict for one request. `upgrade` requests are always checked, webhook paths included:
 * a WebSocket carries no signature. `peer` is who holds the connection's other end (localPeer.ts).
 */
export function checkAccess(
  headers: IncomingHttpHeaders,
  pathname: string,
  options: { boundHost: string; policy: AccessPolicy; upgrade: boolean; peer?: Peer; credential?: boolean },
): AccessVerdict {
  const { policy } = options;
  if (!isGuarded(pathname, policy, options.upgrade)) return ALLOWED;
  // An admin route that asks no token of any kind (the lock's proof: worth something only to
  // whoever can read the lock's nonce, and the serve or VS Code window that checks a lock has none;
  // docs/security.md) asks none here either.
  const stranger = peerRefusal(options.peer, policy, (options.credential ?? false) || (!options.upgrade && asksNoToken(pathname)));
  if (stranger)
    return {
      allowed: false,
      reason: stranger,
      answer: `Forbidden: ${stranger}; the agents, admin and render routes answer only the user who runs Hookbench (docs/security.md).`,
    };
  const origin = headers.origin;
  if (origin !== undefined && !originAllowed(origin, policy)) return browserRefusal(`origin ${JSON.stringify(origin.slice(0, 200))} is not allowed`);
  if (!hostAllowed(headers.host, options.boundHost, policy))
    return browserRefusal(`host ${JSON.stringify((headers.host ?? '').slice(0, 200))} is not this machine`);
  return ALLOWED;
}

function browserRefusal(reason: string): AccessVerdict {
  return { allowed: false, reason, answer: forbiddenText(reason) };
}

/** The body of a 403: what was refused and how to open it up. */
export function forbiddenText(reason: string): string {
  return `Forbidden: ${reason}. Hookbench answers browsers only from loopback and VS Code origins; allow another with --allow-origin or --allow-host (docs/security.md).`;
}

/**
 * Whether a failure's stack may go back in a 500 body: only to a loopback client that is no web
 * page (no Origin) and that named this machine in Host (a DNS-rebinding page names its own
 * domain, and could read a same-origin answer). Everyone else gets a short line; the stack is logged.
 */
export function mayShowStack(headers: IncomingHttpHeaders, remoteAddress: string | undefined): boolean {
  if (headers.origin !== undefined) return false;
  if (headers.host !== undefined && !isLoopbackHost(hostnameOf(headers.host))) return false;
  const address = (remoteAddress ?? '').replace(/^::ffff:/, '');
  return address === '::1' || /^127\./.test(address);
}
