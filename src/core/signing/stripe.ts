import { decodeHexStrict, hmac, safeEqual } from './crypto';
import { missingSecret } from './secret';
import { checkWindow, nowSeconds, parseUnixSeconds } from './timestamps';
import { fail, VALID, type SignatureScheme } from './types';
import { SECRET_ENV } from '../contract/providers';

const HEADER = 'stripe-signature';

/**
 * Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=…]`, v1 = hex HMAC-SHA256 keyed with the
 * `whsec_…` string itself (not base64-decoded) over `${t}.${raw body}`. Any matching v1 is
 * enough, which is how Stripe rolls secrets; v0 and unknown keys are ignored, as in stripe-node.
 */
export const stripe: SignatureScheme = {
  name: 'stripe',
  shape: {
    signatureHeaders: [HEADER],
    eventType: [{ from: 'payload', path: 'type' }],
    action: [],
    deliveryId: [{ from: 'payload', path: 'id' }],
    entity: [
      { from: 'payload', path: 'data.object.customer' },
      { from: 'payload', path: 'data.object.id', when: { path: 'data.object.object', equals: 'customer' } },
      { from: 'payload', path: 'account' },
    ],
    entityField: 'customer',
    entityIgnoresCase: false,
    secretEnv: SECRET_ENV.stripe,
  },

  sign({ secret, body, timestamp }, options) {
    const t = timestamp ?? nowSeconds(options?.now);
    const v1 = hmac('sha256', secret, `${t}.`, body).toString('hex');
    return { headers: { 'Stripe-Signature': `t=${t},v1=${v1}` } };
  },

  verify({ secret, body, headers }, options) {
    const noSecret = missingSecret(secret, this.shape);
    if (noSecret) return noSecret;
    const header = headers[HEADER];
    if (header === undefined) return fail('missing_header', 'missing Stripe-Signature header');
    // Split on "," then at the first "=", as stripe-node does (no trimming: Stripe sends none).
    let t: number | undefined;
    const candidates: Buffer[] = [];
    for (let start = 0; start <= header.length;) {
      let end = header.indexOf(',', start);
      if (end < 0) end = header.length;
      const eq = header.indexOf('=', start);
      if (eq > start && eq < end) {
        const key = header.slice(start, eq);
        if (key === 't') t = parseUnixSeconds(header.slice(eq + 1, end));
        else if (key === 'v1') {
          const digest = decodeHexStrict(header.slice(eq + 1, end));
          if (digest?.length === 32) candidates.push(digest);
        }
      }
      start = end + 1;
    }
    if (t === undefined) return fail('malformed_header', 'Stripe-Signature has no valid t= timestamp');
    if (candidates.length === 0) return fail('malformed_header', 'Stripe-Signature has no v1= signature of 64 hex digits');
    const expected = hmac('sha256', secret!, `${t}.`, body);
    // Compare against every candidate, matched or not, so timing does not reveal which one matched.
    const matched = candidates.map((c) => safeEqual(c, expected)).includes(true);
    if (!matched) return fail('mismatch', 'no v1 signature in Stripe-Signature matches the body and secret');
    return checkWindow(t, options, 'Stripe-Signature timestamp') ?? VALID;
  },
};
