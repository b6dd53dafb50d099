/**
 * Where a request came from, for the deliveries log. A request whose `Host` is not loopback came
 * through a tunnel (or another machine): that is all it can claim, whatever headers it carries.
 * A loopback client may name itself in the `hookbench-source` header (Hookbench's sender, a
 * replay, the smee client, `stripe listen`, a retry of `serve --retries`); the smee client also says whether the body it
 * forwards is the relay's re-encoding, so a signature failure is explained, not a bare 401.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { parseRetrySource, RELAY_REENCODED_NOTE, SOURCE_HEADER, type DeliverySource } from '../../core/contract/deliveries';
import { verificationReason } from '../../core/contract/notes';
import { hostnameOf, isLoopbackHost } from '../net/access';

const RELAYS = new Set(['smee', 'stripe']);

export function deliverySource(headers: IncomingHttpHeaders, verification: string | null): DeliverySource | undefined {
  const host = headers.host ? hostnameOf(headers.host) : '';
  if (host !== '' && !isLoopbackHost(host)) return { kind: 'public', name: host.slice(0, 253) };
  const value = headers[SOURCE_HEADER];
  if (typeof value !== 'string') return undefined;
  const [name = '', ...params] = value.split(';').map((part) => part.trim().toLowerCase());
  if (name === 'send' || name === 'replay') return { kind: name };
  if (name === 'retry') {
    const retry = parseRetrySource(params);
    return retry ? { kind: 'retry', ...retry } : undefined;
  }
  if (!RELAYS.has(name)) return undefined;
  const body = params.find((p) => p.startsWith('body='))?.slice('body='.length);
  const mismatch = verificationReason(verification) === 'mismatch';
  // "changed": the relay's JSON is not the provider's bytes (its length differs), so no HMAC over
  // them can hold. "same-length": re-encoded, maybe byte-identical; a mismatch may be either cause.
  if (body === 'changed') return { kind: 'relay', name, note: RELAY_REENCODED_NOTE };
  if (body === 'same-length' && mismatch)
    return { kind: 'relay', name, note: `${RELAY_REENCODED_NOTE} (same length as the original: the bytes or the secret may differ)` };
  return { kind: 'relay', name };
}

/** The request headers as recorded: Hookbench's own source header is recorded as the source instead. */
export function withoutSourceHeader(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== SOURCE_HEADER));
}
