// Both directions against each provider's own npm library: every header we produce is accepted by
// the official verifier, and every header the official signer produces is accepted by ours.
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import twilioLib from 'twilio';
import { verifySlackRequest } from '@slack/bolt';
import '@shopify/shopify-api/adapters/node';
import { ApiVersion, shopifyApi } from '@shopify/shopify-api';
import { getHmac } from '@shopify/shopify-api/test-helpers';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { normalizeHeaders, schemeFor } from '../../../../src/core/signing';
import { bytes, EMPTY, TEXT_BODIES } from './bodies';

const VALID = { valid: true };
const stripeSignature = Stripe.webhooks.signature!;
const cases = Object.entries(TEXT_BODIES);

describe('GitHub against @octokit/webhooks-methods', () => {
  const github = schemeFor('github');
  const secret = 'gh-secret ✓';

  for (const [name, body] of cases) {
    it(`agrees both ways on a ${name} body`, async () => {
      const octokit = await import('@octokit/webhooks-methods');
      const ours = github.sign({ secret, body: bytes(body) }).headers['X-Hub-Signature-256']!;
      assert.equal(await octokit.verify(secret, body, ours), true);
      const theirs = await octokit.sign(secret, body);
      assert.deepEqual(github.verify({ secret, body: bytes(body), headers: { 'x-hub-signature-256': theirs } }), VALID);
    });
  }

  it('signs the empty body, which octokit refuses to sign or verify at all', async () => {
    const octokit = await import('@octokit/webhooks-methods');
    const ours = github.sign({ secret, body: bytes(EMPTY) }).headers['X-Hub-Signature-256']!;
    assert.deepEqual(github.verify({ secret, body: bytes(EMPTY), headers: { 'x-hub-signature-256': ours } }), VALID);
    await assert.rejects(() => octokit.verify(secret, EMPTY, ours));
  });
});

describe('Stripe against stripe-node', () => {
  const stripe = schemeFor('stripe');
  const secret = 'whsec_test_5ecret';
  const t = 1_790_000_000;
  const clock = { now: () => t * 1000 };

  for (const [name, body] of [...cases, ['empty', EMPTY] as const]) {
    it(`agrees both ways on a ${name} body`, () => {
      const ours = stripe.sign({ secret, body: bytes(body), timestamp: t }).headers['Stripe-Signature']!;
      // verifyHeader is constructEvent without the JSON.parse, so non-JSON bodies are checked too.
      // The string form: stripe-node decodes a Buffer with TextDecoder, which drops a leading BOM;
      // but it refuses an empty string outright ("No webhook payload was provided"), not an empty Buffer.
      const payload = body === EMPTY ? bytes(body) : body;
      assert.equal(stripeSignature.verifyHeader(payload, ours, secret, 300, undefined, t * 1000), true);
      const theirs = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: t });
      assert.deepEqual(stripe.verify({ secret, body: bytes(body), headers: { 'stripe-signature': theirs } }, clock), VALID);
    });
  }

  it('keeps a leading BOM in the signed bytes, where stripe-node drops it from a Buffer', () => {
    const body = TEXT_BODIES['byte-order mark']!;
    const ours = stripe.sign({ secret, body: bytes(body), timestamp: t }).headers['Stripe-Signature']!;
    assert.throws(() => stripeSignature.verifyHeader(bytes(body), ours, secret, 300, undefined, t * 1000), /No signatures found/);
    const bomless = stripe.sign({ secret, body: bytes(body.slice(1)), timestamp: t }).headers['Stripe-Signature']!;
    assert.deepEqual(stripe.verify({ secret, body: bytes(body), headers: { 'stripe-signature': bomless } }, clock).valid, false);
  });

  it('accepts a header carrying a rolled secret beside the current one, as stripe-node does', () => {
    const body = bytes(TEXT_BODIES['plain JSON']!);
    const old = Stripe.webhooks.generateTestHeaderString({ payload: TEXT_BODIES['plain JSON']!, secret: 'whsec_old', timestamp: t });
    const current = stripe.sign({ secret, body, timestamp: t }).headers['Stripe-Signature']!;
    const header = `${old},${current.split(',')[1]},v0=deadbeef`;
    assert.deepEqual(stripe.verify({ secret, body, headers: { 'stripe-signature': header } }, clock), VALID);
    assert.equal(stripeSignature.verifyHeader(body, header, secret, 300, undefined, t * 1000), true);
  });
});

describe('Twilio against twilio-node', () => {
  const twilio = schemeFor('twilio');
  const token = 'twilio-auth-token';
  const url = 'https://hooks.example.com:8443/webhooks/twilio/AC1?x=1&y=%20two';
  const forms: Record<string, [string, string][]> = {
    SMS: [
      ['AccountSid', 'AC123'],
      ['Body', 'Zoë says hi 🚀 +1 & more'],
      ['From', '+14155550100'],
      ['To', '+14155550199'],
    ],
    'repeated names': [
      ['Tag', 'b'],
      ['Tag', 'a'],
      ['Tag', 'b'],
      ['Empty', ''],
    ],
    'CRLF and odd characters': [
      ['Body', 'line1\r\nline2'],
      ['Key with space', 'v=1&w=2'],
      ['ü', '\uFEFFbom'],
    ],
    'many fields': Array.from({ length: 200 }, (_, i) => [`F${i}`, `value ${i}`] as [string, string]),
  };
  const asObject = (pairs: [string, string][]) => {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of pairs) {
      const prev = out[k];
      out[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
    }
    return out;
  };

  for (const [name, pairs] of Object.entries(forms)) {
    it(`agrees both ways on a ${name} form`, () => {
      const body = bytes(new URLSearchParams(pairs).toString());
      const ours = twilio.sign({ secret: token, body, url }).headers['X-Twilio-Signature']!;
      assert.equal(twilioLib.validateRequest(token, ours, url, asObject(pairs)), true);
      const theirs = twilioLib.getExpectedTwilioSignature(token, url, asObject(pairs));
      assert.deepEqual(twilio.verify({ secret: token, body, url, headers: { 'x-twilio-signature': theirs } }), VALID);
    });
  }

  for (const [name, body] of cases.filter(([, b]) => b.trimStart().startsWith('{') || b.startsWith('\uFEFF'))) {
    it(`agrees both ways on a ${name} JSON body (bodySHA256)`, () => {
      const jsonBody = body.replace(/^\uFEFF/, '');
      const signed = twilio.sign({ secret: token, body: bytes(jsonBody), url });
      assert.equal(twilioLib.validateRequestWithBody(token, signed.headers['X-Twilio-Signature']!, signed.url!, jsonBody), true);
      const signedUrl = `${url}&bodySHA256=${twilioLib.getExpectedBodyHash(jsonBody)}`;
      const theirs = twilioLib.getExpectedTwilioSignature(token, signedUrl, {});
      assert.deepEqual(twilio.verify({ secret: token, body: bytes(jsonBody), url: signedUrl, headers: { 'x-twilio-signature': theirs } }), VALID);
    });
  }

  it('accepts a signature made with or without the default port, as twilio-node does', () => {
    const body = bytes('AccountSid=AC1&Body=hi');
    const params = { AccountSid: 'AC1', Body: 'hi' };
    const withPort = twilioLib.getExpectedTwilioSignature(token, 'https://example.com:443/hook', params);
    const without = twilioLib.getExpectedTwilioSignature(token, 'https://example.com/hook', params);
    for (const [signature, seen] of [
      [withPort, 'https://example.com/hook'],
      [without, 'https://example.com:443/hook'],
    ]) {
      assert.deepEqual(twilio.verify({ secret: token, body, url: seen!, headers: { 'x-twilio-signature': signature! } }), VALID);
      assert.equal(twilioLib.validateRequest(token, signature!, seen!, params), true);
    }
  });
});

describe('Slack against the Bolt verifier', () => {
  const slack = schemeFor('slack');
  const secret = 'slack-signing-secret';
  const ts = 1_790_000_000;

  for (const [name, body] of [...cases, ['empty', EMPTY] as const]) {
    it(`Bolt accepts our headers on a ${name} body`, () => {
      const headers = slack.sign({ secret, body: bytes(body), timestamp: ts }).headers;
      assert.doesNotThrow(() =>
        verifySlackRequest({
          signingSecret: secret,
          body,
          headers: {
            'x-slack-signature': headers['X-Slack-Signature']!,
            'x-slack-request-timestamp': Number(headers['X-Slack-Request-Timestamp']),
          },
          nowMilliseconds: ts * 1000,
        }),
      );
      // Slack ships no Node signer; the reverse direction is the docs vector in vectors.test.ts.
      assert.deepEqual(slack.verify({ secret, body: bytes(body), headers: normalizeHeaders(headers) }, { now: () => ts * 1000 }), VALID);
    });
  }
});

describe('Shopify against @shopify/shopify-api on a real HTTP request', () => {
  const shopify = schemeFor('shopify');
  const secret = 'shpss_app_secret';
  const api = shopifyApi({
    apiKey: 'key',
    apiSecretKey: secret,
    scopes: [],
    hostName: 'localhost',
    apiVersion: ApiVersion.January25,
    isEmbeddedApp: false,
    logger: { log: () => undefined },
  });
  let server: http.Server;
  let port = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const result = await api.webhooks.validate({ rawBody: Buffer.concat(chunks).toString('utf8'), rawRequest: req, rawResponse: res });
        res.end(JSON.stringify(result));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = async (body: string, hmacHeader: Record<string, string>) => {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: bytes(body),
      headers: {
        ...hmacHeader,
        'X-Shopify-Topic': 'orders/create',
        'X-Shopify-Shop-Domain': 'example.myshopify.com',
        'X-Shopify-API-Version': '2025-01',
        'X-Shopify-Webhook-Id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      },
    });
    return (await response.json()) as { valid: boolean };
  };

  for (const [name, body] of cases) {
    it(`agrees both ways on a ${name} body`, async () => {
      const ours = shopify.sign({ secret, body: bytes(body) }).headers;
      assert.equal((await post(body, ours)).valid, true);
      const theirs = getHmac(body, secret);
      assert.deepEqual(shopify.verify({ secret, body: bytes(body), headers: { 'x-shopify-hmac-sha256': theirs } }), VALID);
      assert.deepEqual(shopify.verify({ secret, body: bytes(body), headers: { 'shopify-hmac-sha256': theirs } }), VALID);
    });
  }

  it('signs the empty body, which the Shopify library rejects as missing_body', async () => {
    const ours = shopify.sign({ secret, body: bytes(EMPTY) }).headers;
    assert.deepEqual(shopify.verify({ secret, body: bytes(EMPTY), headers: normalizeHeaders(ours) }), VALID);
    assert.equal((await post(EMPTY, ours)).valid, false);
  });
});

/**
 * svix always JSON.parses the body after the signature check, so for a body that is not JSON
 * (empty, or with a BOM) a SyntaxError, not a WebhookVerificationError, means the signature passed.
 */
function svixAccepts(secret: string, body: string, headers: Record<string, string>): void {
  try {
    new SvixWebhook(secret).verify(body, headers);
  } catch (error) {
    assert.ok(error instanceof SyntaxError, `svix rejected the signature: ${String(error)}`);
  }
}

describe('Standard Webhooks against standardwebhooks and svix', () => {
  const standard = schemeFor('standard');
  const secret = 'whsec_' + Buffer.from('a 32-byte key for standard hooks').toString('base64');

  for (const [name, body] of [...cases, ['empty', EMPTY] as const]) {
    it(`agrees both ways on a ${name} body`, () => {
      const ours = standard.sign({ secret, body: bytes(body) }).headers;
      // jsonParse: false checks the signature alone (the library would parse the JSON afterwards).
      assert.doesNotThrow(() => new StandardWebhook(secret).verify(body, ours, { jsonParse: false }));
      const svixHeaders = { 'svix-id': ours['webhook-id']!, 'svix-timestamp': ours['webhook-timestamp']!, 'svix-signature': ours['webhook-signature']! };
      svixAccepts(secret, body, svixHeaders);

      const id = 'msg_2Lx5EfL2bKzXqGQ0yQ4Vv9Qc';
      const now = new Date();
      const signature = new StandardWebhook(secret).sign(id, now, body);
      const ts = String(Math.floor(now.getTime() / 1000));
      const theirs = { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature };
      assert.deepEqual(standard.verify({ secret, body: bytes(body), headers: theirs }), VALID);
      const svixSignature = new SvixWebhook(secret).sign(id, now, body);
      const svixTheirs = { 'svix-id': id, 'svix-timestamp': ts, 'svix-signature': svixSignature };
      assert.deepEqual(standard.verify({ secret, body: bytes(body), headers: svixTheirs }), VALID);
    });
  }
});
