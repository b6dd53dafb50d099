import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createGeneric, normalizeHeaders, PROVIDERS, schemeFor, type ProviderName, type VerifyResult } from '../../../../src/core/signing';
import { bytes, flips, textFlips } from './bodies';

const T = 1_790_000_000;
const clock = (seconds: number) => ({ now: () => seconds * 1000 });
const URL_ = 'https://hooks.example.com/webhooks/twilio/AC1';
const SECRETS: Record<ProviderName, string> = {
  github: 'gh secret',
  stripe: 'whsec_stripe',
  twilio: 'twilio token',
  slack: 'slack secret',
  shopify: 'shopify secret',
  standard: 'whsec_' + Buffer.from('sixteen byte key').toString('base64'),
  generic: 'generic secret',
};
const BODIES: Record<string, string> = {
  json: '{"repository":{"full_name":"Acme/Widgets"},"type":"x","AccountSid":"AC1"}',
  form: 'AccountSid=AC1&Body=h%C3%A9llo+world&From=%2B1555',
};

/** Headers the verifier reads (GitHub's legacy SHA-1 header is sent, never checked). */
const checked = (headers: Record<string, string>) => Object.keys(headers).filter((h) => h !== 'X-Hub-Signature');

function signed(provider: ProviderName, body: string) {
  const out = schemeFor(provider).sign({ secret: SECRETS[provider], body: bytes(body), url: URL_, timestamp: T });
  return { headers: out.headers, url: out.url ?? URL_ };
}

/** `secret: null` verifies with no secret configured. */
function verify(
  provider: ProviderName,
  body: Uint8Array,
  headers: Record<string, string>,
  url: string,
  secret: string | null = SECRETS[provider],
): VerifyResult {
  return schemeFor(provider).verify({ secret: secret ?? undefined, body, url, headers: normalizeHeaders(headers) }, clock(T));
}

function reason(result: VerifyResult): string {
  return result.valid ? 'valid' : result.reason;
}

for (const provider of PROVIDERS) {
  for (const [kind, body] of Object.entries(BODIES)) {
    describe(`${provider} on a ${kind} body`, () => {
      const { headers, url } = signed(provider, body);

      it('verifies what it signed', () => {
        assert.deepEqual(verify(provider, bytes(body), headers, url), { valid: true });
      });

      it('rejects the body with any byte flipped', () => {
        for (const tampered of flips(bytes(body))) {
          assert.match(reason(verify(provider, tampered, headers, url)), /mismatch/);
        }
      });

      it('rejects every signature header with any character flipped', () => {
        for (const name of checked(headers)) {
          for (const value of textFlips(headers[name]!)) {
            assert.notEqual(reason(verify(provider, bytes(body), { ...headers, [name]: value }, url)), 'valid', `${name}: ${value}`);
          }
        }
      });

      it('rejects the secret with any character flipped', () => {
        for (const secret of textFlips(SECRETS[provider])) {
          assert.notEqual(reason(verify(provider, bytes(body), headers, url, secret)), 'valid', secret);
        }
      });

      it('says which header is missing', () => {
        for (const name of checked(headers)) {
          const { [name]: _gone, ...rest } = headers;
          const result = verify(provider, bytes(body), rest, url);
          assert.equal(reason(result), 'missing_header', name);
          assert.ok(!result.valid && result.message.toLowerCase().includes(name.toLowerCase()), result.valid ? '' : result.message);
        }
      });

      it('answers no_secret, naming the environment variable, when no secret is configured', () => {
        const result = verify(provider, bytes(body), headers, url, null);
        assert.equal(reason(result), 'no_secret');
        assert.ok(!result.valid && result.message.includes(schemeFor(provider).shape.secretEnv));
      });

      it('never puts the secret or the expected signature in a failure message', () => {
        const wrong = Object.fromEntries(checked(headers).map((n) => [n, headers[n]!.replace(/[0-9a-f]/g, '0')]));
        const results = [verify(provider, bytes('{}'), headers, url), verify(provider, bytes(body), { ...headers, ...wrong }, url)];
        for (const result of results) {
          assert.equal(result.valid, false);
          const message = result.valid ? '' : result.message;
          assert.ok(!message.includes(SECRETS[provider]));
          for (const value of Object.values(headers)) assert.ok(!message.includes(value.slice(-20)), message);
        }
      });
    });
  }
}

describe('time windows (Stripe, Slack, Standard Webhooks)', () => {
  for (const provider of ['stripe', 'slack', 'standard'] as const) {
    const { headers } = signed(provider, BODIES.json!);
    const at = (seconds: number, tolerance?: number) =>
      reason(
        schemeFor(provider).verify(
          { secret: SECRETS[provider], body: bytes(BODIES.json!), headers: normalizeHeaders(headers) },
          { ...clock(seconds), ...(tolerance === undefined ? {} : { toleranceSeconds: tolerance }) },
        ),
      );

    it(`${provider}: a signature exactly 300 s old passes, 301 s is stale`, () => {
      assert.equal(at(T + 300), 'valid');
      assert.equal(at(T + 301), 'stale');
    });

    it(`${provider}: a signature up to 300 s in the future passes, beyond is too_new`, () => {
      assert.equal(at(T - 300), 'valid');
      assert.equal(at(T - 301), 'too_new');
    });

    it(`${provider}: the tolerance is configurable`, () => {
      assert.equal(at(T + 10, 5), 'stale');
      assert.equal(at(T + 10, 3600), 'valid');
    });
  }
});

describe('malformed headers', () => {
  const body = bytes(BODIES.json!);
  const cases: [ProviderName, Record<string, string>][] = [
    ['github', { 'x-hub-signature-256': 'sha1=abc' }],
    ['github', { 'x-hub-signature-256': 'sha256=' + 'A'.repeat(64) }],
    ['stripe', { 'stripe-signature': 'v1=' + 'a'.repeat(64) }],
    ['stripe', { 'stripe-signature': `t=${T},v0=${'a'.repeat(64)}` }],
    ['stripe', { 'stripe-signature': `t=soon,v1=${'a'.repeat(64)}` }],
    ['slack', { 'x-slack-signature': 'v1=' + 'a'.repeat(64), 'x-slack-request-timestamp': String(T) }],
    ['slack', { 'x-slack-signature': 'v0=' + 'a'.repeat(64), 'x-slack-request-timestamp': '1.5e9' }],
    ['shopify', { 'x-shopify-hmac-sha256': 'not base64!' }],
    ['twilio', { 'x-twilio-signature': 'short' }],
    ['standard', { 'webhook-id': 'm', 'webhook-timestamp': String(T), 'webhook-signature': 'v1a,abc v2,xyz' }],
  ];
  for (const [provider, headers] of cases) {
    it(`${provider}: ${JSON.stringify(headers)} is malformed_header`, () => {
      assert.equal(reason(verify(provider, body, headers, URL_)), 'malformed_header');
    });
  }
});

describe('provider specifics', () => {
  it('Twilio: without the request URL the answer is missing_url', () => {
    const { headers } = signed('twilio', BODIES.form!);
    assert.equal(reason(schemeFor('twilio').verify({ secret: SECRETS.twilio, body: bytes(BODIES.form!), headers: normalizeHeaders(headers) })), 'missing_url');
  });

  it('Twilio: a JSON body that does not match bodySHA256 is body_mismatch, though the URL signature holds', () => {
    const { headers, url } = signed('twilio', BODIES.json!);
    assert.equal(reason(verify('twilio', bytes(BODIES.json! + ' '), headers, url)), 'body_mismatch');
  });

  it('Twilio: signing needs the URL', () => {
    assert.throws(() => schemeFor('twilio').sign({ secret: 's', body: bytes('a=b') }), /url/);
  });

  it('Standard Webhooks: one matching entry in a list of several is enough; v1a entries are ignored', () => {
    const { headers } = signed('standard', BODIES.json!);
    const list = `v1a,${'A'.repeat(86)}== v1,${Buffer.alloc(32).toString('base64')} ${headers['webhook-signature']}`;
    assert.equal(reason(verify('standard', bytes(BODIES.json!), { ...headers, 'webhook-signature': list }, URL_)), 'valid');
  });

  it('Standard Webhooks: a secret that is not base64 is invalid_secret, and cannot sign', () => {
    const { headers } = signed('standard', BODIES.json!);
    assert.equal(reason(verify('standard', bytes(BODIES.json!), headers, URL_, 'whsec_%%%')), 'invalid_secret');
    assert.throws(() => schemeFor('standard').sign({ secret: 'whsec_%%%', body: bytes('{}') }), /base64/);
  });

  it('Standard Webhooks: the svix-* header names verify too', () => {
    const { headers } = signed('standard', BODIES.json!);
    const svix = { 'svix-id': headers['webhook-id']!, 'svix-timestamp': headers['webhook-timestamp']!, 'svix-signature': headers['webhook-signature']! };
    assert.equal(reason(verify('standard', bytes(BODIES.json!), svix, URL_)), 'valid');
  });

  it('Shopify: the unprefixed Events header family verifies too', () => {
    const { headers } = signed('shopify', BODIES.json!);
    assert.equal(reason(verify('shopify', bytes(BODIES.json!), { 'shopify-hmac-sha256': headers['X-Shopify-Hmac-Sha256']! }, URL_)), 'valid');
  });

  it('Stripe: a header with several v1 signatures verifies when any one matches', () => {
    const { headers } = signed('stripe', BODIES.json!);
    const header = headers['Stripe-Signature']!.replace(`t=${T},`, `t=${T},v1=${'0'.repeat(64)},`);
    assert.equal(reason(verify('stripe', bytes(BODIES.json!), { 'Stripe-Signature': header }, URL_)), 'valid');
  });

  it('generic: header, algorithm, encoding and prefix are configurable', () => {
    const scheme = createGeneric({ header: 'X-Hook-Sig', algorithm: 'sha512', encoding: 'base64', prefix: 'sha512=' });
    const out = scheme.sign({ secret: 's', body: bytes('{}') });
    assert.match(out.headers['X-Hook-Sig']!, /^sha512=[A-Za-z0-9+/]{86}==$/);
    assert.equal(reason(scheme.verify({ secret: 's', body: bytes('{}'), headers: normalizeHeaders(out.headers) })), 'valid');
    assert.equal(reason(scheme.verify({ secret: 's', body: bytes('{}'), headers: { 'x-hook-sig': out.headers['X-Hook-Sig']!.slice(7) } })), 'malformed_header');
  });

  it('works on raw bytes that are not valid UTF-8', () => {
    const body = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x7b]);
    for (const provider of ['github', 'stripe', 'slack', 'shopify', 'standard', 'generic'] as const) {
      const { headers } = schemeFor(provider).sign({ secret: SECRETS[provider], body, timestamp: T });
      assert.equal(reason(verify(provider, body, headers, URL_)), 'valid', provider);
      assert.notEqual(reason(verify(provider, Buffer.from([0xef, 0xbf, 0xbd, 0x00, 0xef, 0xbf, 0xbd, 0x7b]), headers, URL_)), 'valid', provider);
    }
  });
});
