/**
 * The addresses a rendered page may not reach (docs/security.md, The browser). On Cloudflare a
 * page loads the public web; here the browser sits on the developer's machine, so a page (or the
 * URL a webhook carried into a render) could read what only this machine reaches:
 * - link-local addresses, 169.254.0.0/16 and fe80::/10, where cloud metadata services answer
 *   (169.254.169.254 holds a cloud VM's credentials, a Codespace's or a dev box's included);
 * - this machine's own Hookbench services: the receiver's admin API (`/__hookbench/…` on its port)
 *   and the render emulator itself.
 * Loopback dev servers (`http://127.0.0.1:3000`) stay allowed, as they are today.
 */
import { BlockList, isIP } from 'node:net';
import * as os from 'node:os';

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
// Connecting to the unspecified address reaches this machine.
LOOPBACK.addAddress('0.0.0.0', 'ipv4');
LOOPBACK.addAddress('::', 'ipv6');

const family = (ip: string): 'ipv4' | 'ipv6' => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');

/** 169.254.0.0/16 or fe80::/10, IPv4-mapped forms included. */
export function isLinkLocal(ip: string): boolean {
  return isIP(ip) !== 0 && LINK_LOCAL.check(ip, family(ip));
}

/** An address that reaches this machine: loopback, unspecified, or one of its interfaces'. */
export function isThisMachine(ip: string): boolean {
  if (isIP(ip) === 0) return false;
  if (LOOPBACK.check(ip, family(ip))) return true;
  return Object.values(os.networkInterfaces()).some((list) => list?.some((entry) => entry.address === ip));
}

/** The ports of this machine's Hookbench services that pages may not reach. */
export interface OwnServices {
  /** The receiver's: its `/__hookbench/` routes (the admin API) are refused. */
  readonly receiverPort?: number;
  /** The render emulator's own: refused whole. */
  readonly renderPort?: number;
}

/**
 * What `ip` on `port` is when a page may not reach it (`path` when the request's is known,
 * undefined for a tunnel, which refuses the receiver's port whole), or undefined when it may.
 */
export function addressRefusal(ip: string, port: number, path: string | undefined, own: OwnServices): string | undefined {
  if (isLinkLocal(ip)) return 'a link-local address, where cloud metadata services answer';
  if (!isThisMachine(ip)) return undefined;
  if (port === own.receiverPort && (path === undefined || path.startsWith('/__hookbench'))) return `the receiver's admin API (port ${port} of this machine)`;
  if (port === own.renderPort) return `the render emulator itself (port ${port} of this machine)`;
  return undefined;
}

/**
 * The address a URL's host names without a lookup: an IP literal (`[::1]` → `::1`), or loopback
 * for `localhost` names, which Chromium never asks a resolver about. Undefined for other names.
 */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) return bare;
  const lower = bare.toLowerCase().replace(/\.$/, '');
  return lower === 'localhost' || lower.endsWith('.localhost') ? '127.0.0.1' : undefined;
}

/** The port a URL goes to, its scheme's default included. */
export function urlPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
}
