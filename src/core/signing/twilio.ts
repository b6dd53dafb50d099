import { decodeBase64Digest, hmac, safeEqual, safeEqualText, sha256Hex } from './crypto';
import { missingSecret } from './secret';
import { fail, VALID, type SignatureScheme } from './types';
import { SECRET_ENV } from '../contract/providers';

const HEADER = 'x-twilio-signature';

/** Form fields after URL-decoding; repeated names keep every value. */
export function parseForm(body: Uint8Array): Record<string, string[]> {
  const params: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(Buffer.from(body).toString('utf8'))) {
    (params[name] ??= []).push(value);
  }
  return params;
}

/**
 * The string Twilio signs: the full URL, then every parameter as name + value, names in code-unit
 * order, repeated names de-duplicated and their values sorted (twilio-node's `toFormUrlEncodedParam`).
 */
export function twilioSignedText(url: string, params: Record<string, string[]>): string {
  let text = url;
  for (const name of Object.keys(params).sort()) {
    const values = params[name]!;
    if (values.length === 1) text += name + values[0];
    else for (const value of [...new Set(values)].sort()) text += name + value;
  }
  return text;
}

const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?([^:/?#]*)(:\d+)?(.*)$/is;

function withAndWithoutPort(url: string): string[] {
  const parts = URL_PARTS.exec(url);
  if (!parts) return [url];
  const [, scheme, user = '', host, port, rest] = parts;
  const defaultPort = scheme!.toLowerCase() === 'https://' ? ':443' : ':80';
  return [scheme! + user + host + rest, scheme! + user + host + (port ?? defaultPort) + rest];
}

/**
 * The URLs a signature may have been computed over, most likely first: Twilio signs the URL it
 * requested, and what the receiver sees may differ by an explicit default port (twilio-node tries
 * both), or by `new URL()` normalisation of special characters (tried only if the others fail).
 */
export function urlVariants(url: string): string[] {
  const variants = [url, ...withAndWithoutPort(url)];
  try {
    const normalized = new URL(url).toString();
    variants.push(normalized, ...withAndWithoutPort(normalized));
  } catch {
    // Not a parseable URL: the as-received variants are all there is.
  }
  return [...new Set(variants)];
}

/** The `bodySHA256` query parameter Twilio adds for JSON bodies (hex, so nothing to decode). */
function bodyHashOf(url: string): string | undefined {
  return /[?&]bodySHA256=([^&#]*)/.exec(url)?.[1];
}

/**
 * Twilio: `X-Twilio-Signature` = base64 HMAC-SHA1(auth token, URL + sorted form params). For JSON
 * bodies Twilio appends `bodySHA256=<hex sha256(body)>` to the URL and signs the URL alone; the
 * receiver then checks the body hash as well. There is no timestamp, so no replay window.
 */
export const twilio: SignatureScheme = {
  name: 'twilio',
  shape: {
    signatureHeaders: [HEADER],
    eventType: [
      { from: 'payload', path: 'MessageStatus' },
      { from: 'payload', path: 'SmsStatus' },
      { from: 'payload', path: 'CallStatus' },
      { from: 'payload', path: 'type' },
    ],
    action: [],
    deliveryId: [{ from: 'header', name: 'i-twilio-idempotency-token' }],
    entity: [
      { from: 'payload', path: 'AccountSid' },
      { from: 'payload', path: 'account_sid' },
    ],
    entityField: 'AccountSid',
    entityIgnoresCase: false,
    secretEnv: SECRET_ENV.twilio,
  },

  sign({ secret, body, url }) {
    if (!url) throw new TypeError('Twilio signs the full request URL: pass url');
    const text = Buffer.from(body).toString('utf8').trimStart();
    if (text.startsWith('{') || text.startsWith('[')) {
      const signedUrl = `${url}${url.includes('?') ? '&' : '?'}bodySHA256=${sha256Hex(body)}`;
      return { headers: { 'X-Twilio-Signature': hmac('sha1', secret, signedUrl).toString('base64') }, url: signedUrl };
    }
    const signature = hmac('sha1', secret, twilioSignedText(url, parseForm(body))).toString('base64');
    return { headers: { 'X-Twilio-Signature': signature } };
  },

  verify({ secret, body, headers, url }) {
    const noSecret = missingSecret(secret, this.shape);
    if (noSecret) return noSecret;
    if (!url) return fail('missing_url', 'Twilio signatures cover the request URL, and none was given');
    const header = headers[HEADER];
    if (header === undefined) return fail('missing_header', 'missing X-Twilio-Signature header');
    const digest = decodeBase64Digest(header.trim(), 20);
    if (!digest) return fail('malformed_header', 'X-Twilio-Signature must be the base64 of 20 bytes');
    const bodyHash = bodyHashOf(url);
    const params = bodyHash === undefined ? parseForm(body) : {};
    // Which URL variant matched says nothing about the secret, so stopping at the first is safe.
    const matches = (candidate: string) => safeEqual(digest, hmac('sha1', secret!, twilioSignedText(candidate, params)));
    // The URL as received matches in the common case; the variants are built only when it does not.
    const matched = matches(url) || urlVariants(url).slice(1).some(matches);
    if (!matched) return fail('mismatch', 'X-Twilio-Signature does not match the URL, parameters and auth token');
    if (bodyHash !== undefined && !safeEqualText(bodyHash, sha256Hex(body))) {
      return fail('body_mismatch', 'the body does not match the bodySHA256 of the signed URL');
    }
    return VALID;
  },
};
