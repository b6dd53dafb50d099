import { randomBytes } from 'node:crypto';
import { decodeBase64Digest, decodeBase64Strict, hmac, safeEqual } from './crypto';
import { firstHeader } from './headers';
import { missingSecret } from './secret';
import { checkWindow, nowSeconds, parseUnixSeconds } from './timestamps';
import { fail, VALID, type SignatureScheme } from './types';
import { SECRET_ENV } from '../contract/providers';

const ID = ['webhook-id', 'svix-id'];
const TIMESTAMP = ['webhook-timestamp', 'svix-timestamp'];
const SIGNATURE = ['webhook-signature', 'svix-signature'];

/** The key of a `whsec_<base64>` secret (the prefix is optional), or undefined when not base64. */
export function standardKey(secret: string): Buffer | undefined {
  const key = decodeBase64Strict(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  return key && key.length > 0 ? key : undefined;
}

/** Decodes each secret once: a receiver verifies many deliveries with the same secret. */
function keyMemo(): (secret: string) => Buffer | undefined {
  let lastSecret: string | undefined;
  let lastKey: Buffer | undefined;
  return (secret) => {
    if (secret !== lastSecret) {
      lastKey = standardKey(secret);
      lastSecret = secret;
    }
    return lastKey;
  };
}

const keyOf = keyMemo();

/**
 * Standard Webhooks (and Svix, whose `svix-*` names are accepted too): `webhook-signature` is a
 * space-separated list of `v1,<base64 HMAC-SHA256>` over `${id}.${timestamp}.${raw body}`, keyed
 * with the base64-decoded secret. Entries of other versions (v1a is ed25519) are ignored.
 */
export const standard: SignatureScheme = {
  name: 'standard',
  shape: {
    signatureHeaders: SIGNATURE,
    eventType: [{ from: 'payload', path: 'type' }],
    action: [],
    deliveryId: ID.map((name) => ({ from: 'header', name })),
    entity: [
      { from: 'payload', path: 'data.customer_id' },
      { from: 'payload', path: 'data.account_id' },
      { from: 'payload', path: 'data.customer' },
    ],
    entityField: 'data.customer_id',
    entityIgnoresCase: false,
    secretEnv: SECRET_ENV.standard,
  },

  sign({ secret, body, timestamp, id }, options) {
    const key = keyOf(secret);
    if (!key) throw new TypeError('a Standard Webhooks secret is base64, optionally prefixed with whsec_');
    const msgId = id ?? options?.randomId?.() ?? `msg_${randomBytes(12).toString('base64url')}`;
    const ts = timestamp ?? nowSeconds(options?.now);
    const signature = hmac('sha256', key, `${msgId}.${ts}.`, body).toString('base64');
    return { headers: { 'webhook-id': msgId, 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${signature}` } };
  },

  verify({ secret, body, headers }, options) {
    const noSecret = missingSecret(secret, this.shape);
    if (noSecret) return noSecret;
    const key = keyOf(secret!);
    if (!key) return fail('invalid_secret', 'the secret is not base64 (whsec_ followed by base64)');
    const id = firstHeader(headers, ID);
    const tsHeader = firstHeader(headers, TIMESTAMP);
    const list = firstHeader(headers, SIGNATURE);
    if (!id || !tsHeader || !list) {
      const missing = [!id && 'webhook-id', !tsHeader && 'webhook-timestamp', !list && 'webhook-signature'].filter(Boolean);
      return fail('missing_header', `missing ${missing.join(', ')} header`);
    }
    const ts = parseUnixSeconds(tsHeader.value);
    if (ts === undefined) return fail('malformed_header', `${tsHeader.name} must be Unix seconds`);
    const expected = hmac('sha256', key, `${id.value}.${ts}.`, body);
    let seen = 0;
    let matched = false;
    const text = list.value;
    for (let start = 0, end = 0; start < text.length; start = end + 1) {
      end = text.indexOf(' ', start);
      if (end < 0) end = text.length;
      if (!text.startsWith('v1,', start)) continue;
      const digest = decodeBase64Digest(text.slice(start + 3, end), 32);
      if (!digest) continue;
      seen++;
      // Every entry is compared, matched or not, so timing does not tell which one matched.
      matched = safeEqual(digest, expected) || matched;
    }
    if (seen === 0) return fail('malformed_header', `${list.name} has no v1,<base64> entry`);
    if (!matched) {
      return fail('mismatch', `no v1 signature in ${list.name} matches the id, timestamp, body and secret`);
    }
    return checkWindow(ts, options, tsHeader.name) ?? VALID;
  },
};
