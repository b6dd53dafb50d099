// Edit & Resend's draft of a delivery (docs/explorer.md, "Edit & Resend"): what a new send keeps
// of the request, and where it goes.
import '../helpers/vscodeShim';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliveryDetails } from '../../../src/core/contract/admin';
import { draftOf } from '../../../src/vscode/editResend';

const received: DeliveryDetails = {
  id: 'd-1',
  time: '2026-11-25T10:00:00.000Z',
  method: 'POST',
  path: '/webhooks/github/acme',
  requestHeaders: {
    Host: '127.0.0.1:8787',
    'Content-Type': 'application/json',
    'X-GitHub-Event': 'push',
    'X-GitHub-Delivery': 'g-1',
    'X-Hub-Signature-256': 'sha256=abc',
    'Content-Length': '30',
  },
  requestTruncated: false,
  status: 200,
  responseHeaders: {},
  durationMs: 1,
  provider: 'github',
  entity: 'acme',
  verification: 'valid',
  eventType: 'push',
  requestBody: '{"ref":"main","pusher":{"name":"zoe"}}',
  requestBodyBase64: '',
  responseBody: 'OK',
};

describe('Edit & Resend', () => {
  it('drafts the body as pretty JSON with the headers a new send keeps, to the provider’s route', () => {
    const { meta, body } = draftOf(received, 'http://127.0.0.1:8787');
    assert.equal(body, '{\n  "ref": "main",\n  "pusher": {\n    "name": "zoe"\n  }\n}');
    assert.deepEqual(meta, {
      provider: 'github',
      event: 'push',
      entity: 'acme',
      headers: { 'content-type': 'application/json', 'x-github-delivery': 'g-1', 'x-github-event': 'push' },
      url: undefined,
    });
  });

  it('sends one that came on another path back to that path', () => {
    assert.equal(draftOf({ ...received, path: '/hooks/gh?x=1' }, 'http://127.0.0.1:8787').meta.url, 'http://127.0.0.1:8787/hooks/gh?x=1');
  });

  it('says why it cannot, in one line', () => {
    assert.throws(() => draftOf({ ...received, provider: null }, ''), /no known provider to sign it for/);
    assert.throws(() => draftOf({ ...received, requestTruncated: true }, ''), /kept only the start of this body/);
  });
});
