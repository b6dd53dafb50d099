import { decodeHexStrict, hmac, safeEqual } from './crypto';
import { missingSecret } from './secret';
import { fail, VALID, type SignatureScheme } from './types';
import { SECRET_ENV } from '../contract/providers';

const HEADER = 'x-hub-signature-256';

/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`. The legacy SHA-1
 * `X-Hub-Signature` is sent alongside, as GitHub still does, but only SHA-256 is verified.
 */
export const github: SignatureScheme = {
  name: 'github',
  shape: {
    signatureHeaders: [HEADER],
    eventType: [{ from: 'header', name: 'x-github-event' }],
    action: [{ from: 'payload', path: 'action' }],
    deliveryId: [{ from: 'header', name: 'x-github-delivery' }],
    entity: [
      { from: 'payload', path: 'repository.full_name' },
      { from: 'payload', path: 'organization.login' },
      { from: 'payload', path: 'installation.id' },
      { from: 'header', name: 'x-github-hook-installation-target-id' },
    ],
    entityField: 'repository',
    entityIgnoresCase: true,
    secretEnv: SECRET_ENV.github,
  },

  sign({ secret, body }) {
    return {
      headers: {
        'X-Hub-Signature-256': 'sha256=' + hmac('sha256', secret, body).toString('hex'),
        'X-Hub-Signature': 'sha1=' + hmac('sha1', secret, body).toString('hex'),
      },
    };
  },

  verify({ secret, body, headers }) {
    const noSecret = missingSecret(secret, this.shape);
    if (noSecret) return noSecret;
    const header = headers[HEADER];
    if (header === undefined) return fail('missing_header', 'missing X-Hub-Signature-256 header');
    const digest = header.startsWith('sha256=') ? decodeHexStrict(header.slice(7)) : undefined;
    if (digest?.length !== 32) {
      return fail('malformed_header', 'X-Hub-Signature-256 must be "sha256=" followed by 64 lower-case hex digits');
    }
    if (!safeEqual(digest, hmac('sha256', secret!, body))) {
      return fail('mismatch', 'X-Hub-Signature-256 does not match the body and secret');
    }
    return VALID;
  },
};
