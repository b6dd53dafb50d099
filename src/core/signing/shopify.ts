import { decodeBase64Digest, hmac, safeEqual } from './crypto';
import { firstHeader } from './headers';
import { missingSecret } from './secret';
import { fail, VALID, type SignatureScheme } from './types';
import { SECRET_ENV } from '../contract/providers';

/** Classic webhooks use `X-Shopify-*`, the newer Events deliveries unprefixed `shopify-*`. */
const HMAC_HEADERS = ['x-shopify-hmac-sha256', 'shopify-hmac-sha256'];

/** Shopify: base64 HMAC-SHA256 of the raw body keyed with the app's client secret. No timestamp. */
export const shopify: SignatureScheme = {
  name: 'shopify',
  shape: {
    signatureHeaders: HMAC_HEADERS,
    eventType: [
      { from: 'header', name: 'x-shopify-topic' },
      { from: 'header', name: 'shopify-topic' },
    ],
    action: [{ from: 'header', name: 'x-shopify-sub-topic' }],
    // shopify.dev: the same event id across webhooks marks a duplicate; older guidance uses the webhook id.
    deliveryId: [
      { from: 'header', name: 'x-shopify-event-id' },
      { from: 'header', name: 'shopify-event-id' },
      { from: 'header', name: 'x-shopify-webhook-id' },
      { from: 'header', name: 'shopify-webhook-id' },
    ],
    entity: [
      { from: 'header', name: 'x-shopify-shop-domain' },
      { from: 'header', name: 'shopify-shop-domain' },
    ],
    entityField: 'X-Shopify-Shop-Domain',
    entityIgnoresCase: false,
    secretEnv: SECRET_ENV.shopify,
  },

  sign({ secret, body }) {
    return { headers: { 'X-Shopify-Hmac-Sha256': hmac('sha256', secret, body).toString('base64') } };
  },

  verify({ secret, body, headers }) {
    const noSecret = missingSecret(secret, this.shape);
    if (noSecret) return noSecret;
    const header = firstHeader(headers, HMAC_HEADERS);
    if (!header) return fail('missing_header', 'missing X-Shopify-Hmac-Sha256 (or shopify-hmac-sha256) header');
    const digest = decodeBase64Digest(header.value.trim(), 32);
    if (!digest) return fail('malformed_header', `${header.name} must be the base64 of 32 bytes`);
    if (!safeEqual(digest, hmac('sha256', secret!, body))) {
      return fail('mismatch', `${header.name} does not match the body and secret`);
    }
    return VALID;
  },
};
