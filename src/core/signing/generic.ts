import { hmac, safeEqual, type HmacAlgorithm } from './crypto';
import { missingSecret } from './secret';
import { fail, VALID, type SignatureScheme } from './types';
import { SECRET_ENV } from '../contract/providers';

/** How a generic HMAC signature is carried: header, algorithm, encoding and an optional prefix. */
export interface GenericOptions {
  readonly header: string;
  readonly algorithm: HmacAlgorithm;
  readonly encoding: 'hex' | 'base64';
  readonly prefix: string;
}

/** The seed's outbound shape: `X-Signature` = hex HMAC-SHA256 of the body. */
export const GENERIC_DEFAULTS: GenericOptions = { header: 'X-Signature', algorithm: 'sha256', encoding: 'hex', prefix: '' };

/** A generic HMAC scheme; `generic` is the default one, `createGeneric` makes others. */
export function createGeneric(overrides: Partial<GenericOptions> = {}): SignatureScheme {
  const options = { ...GENERIC_DEFAULTS, ...overrides };
  const headerKey = options.header.toLowerCase();
  const encode = (secret: string, body: Uint8Array) => options.prefix + hmac(options.algorithm, secret, body).toString(options.encoding);
  return {
    name: 'generic',
    shape: {
      signatureHeaders: [headerKey],
      eventType: [
        { from: 'header', name: 'x-event-type' },
        { from: 'payload', path: 'type' },
        { from: 'payload', path: 'event' },
      ],
      action: [{ from: 'payload', path: 'action' }],
      deliveryId: [
        { from: 'header', name: 'x-delivery-id' },
        { from: 'header', name: 'x-request-id' },
        { from: 'payload', path: 'id' },
      ],
      entity: [],
      entityField: 'entity',
      entityIgnoresCase: false,
      secretEnv: SECRET_ENV.generic,
    },

    sign({ secret, body }) {
      return { headers: { [options.header]: encode(secret, body) } };
    },

    verify({ secret, body, headers }) {
      const noSecret = missingSecret(secret, this.shape);
      if (noSecret) return noSecret;
      const header = headers[headerKey];
      if (header === undefined) return fail('missing_header', `missing ${options.header} header`);
      if (!header.startsWith(options.prefix)) return fail('malformed_header', `${options.header} must start with "${options.prefix}"`);
      // Compare the encoded text: hex case and base64 spelling are part of the scheme.
      if (!safeEqual(Buffer.from(header.trim()), Buffer.from(encode(secret!, body)))) {
        return fail('mismatch', `${options.header} does not match the body and secret`);
      }
      return VALID;
    },
  };
}

export const generic: SignatureScheme = createGeneric();
