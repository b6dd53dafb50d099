import { decodeHexStrict, hmac, safeEqual } from './crypto';
import { missingSecret } from './secret';
import { checkWindow, nowSeconds, parseUnixSeconds } from './timestamps';
import { fail, VALID, type SignatureScheme } from './types';
import { SECRET_ENV } from '../contract/providers';

const SIGNATURE = 'x-slack-signature';
const TIMESTAMP = 'x-slack-request-timestamp';

/**
 * Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:" + ts + ":" + raw body)>`
 * with `X-Slack-Request-Timestamp`, inside a 5-minute window. Only version v0 exists.
 */
export const slack: SignatureScheme = {
  name: 'slack',
  shape: {
    signatureHeaders: [SIGNATURE],
    eventType: [
      { from: 'payload', path: 'event.type' },
      { from: 'payload', path: 'type' },
      { from: 'payload', path: 'command' },
    ],
    action: [{ from: 'payload', path: 'event.subtype' }],
    deliveryId: [
      { from: 'payload', path: 'event_id' },
      { from: 'payload', path: 'trigger_id' },
    ],
    entity: [
      { from: 'payload', path: 'team_id' },
      { from: 'payload', path: 'team.id' },
      { from: 'payload', path: 'authorizations.0.team_id' },
      { from: 'payload', path: 'enterprise_id' },
    ],
    entityField: 'team_id',
    entityIgnoresCase: false,
    secretEnv: SECRET_ENV.slack,
  },

  sign({ secret, body, timestamp }, options) {
    const ts = timestamp ?? nowSeconds(options?.now);
    const signature = 'v0=' + hmac('sha256', secret, `v0:${ts}:`, body).toString('hex');
    return { headers: { 'X-Slack-Signature': signature, 'X-Slack-Request-Timestamp': String(ts) } };
  },

  verify({ secret, body, headers }, options) {
    const noSecret = missingSecret(secret, this.shape);
    if (noSecret) return noSecret;
    const header = headers[SIGNATURE];
    const tsHeader = headers[TIMESTAMP];
    if (header === undefined) return fail('missing_header', 'missing X-Slack-Signature header');
    if (tsHeader === undefined) return fail('missing_header', 'missing X-Slack-Request-Timestamp header');
    const ts = parseUnixSeconds(tsHeader);
    if (ts === undefined) return fail('malformed_header', 'X-Slack-Request-Timestamp must be Unix seconds');
    const digest = header.startsWith('v0=') ? decodeHexStrict(header.slice(3)) : undefined;
    if (digest?.length !== 32) {
      return fail('malformed_header', 'X-Slack-Signature must be "v0=" followed by 64 lower-case hex digits');
    }
    if (!safeEqual(digest, hmac('sha256', secret!, `v0:${ts}:`, body))) {
      return fail('mismatch', 'X-Slack-Signature does not match the body, timestamp and secret');
    }
    return checkWindow(ts, options, 'X-Slack-Request-Timestamp') ?? VALID;
  },
};
