// The webhook routes the extension and the CLI send to are the ones the built-in worker routes by.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WEBHOOK_PATHS, webhookPath } from '../../../../src/core/contract/webhookRoutes';
import { webhookRoute } from '../../../../src/workers/default/routes';

const routed = (path: string) => webhookRoute(new URL(path, 'http://127.0.0.1:8787'), {});

describe('the webhook routes', () => {
  it('formats the paths the worker routes: a provider, or a provider and an entity', () => {
    assert.equal(webhookPath('stripe'), '/webhooks/stripe');
    assert.deepEqual(routed(webhookPath('stripe')), { provider: 'stripe', entity: undefined, queued: false });
    assert.equal(webhookPath('github', 'Acme/Widgets'), '/webhooks/github/Acme%2FWidgets');
    assert.deepEqual(routed(webhookPath('github', 'Acme/Widgets')), { provider: 'github', entity: 'acme-widgets', queued: false });
  });

  it('opens exactly the prefixes the worker routes, queued included', () => {
    assert.deepEqual(WEBHOOK_PATHS, ['/webhooks/', '/webhooks-queued/']);
    assert.equal(routed('/webhooks-queued/github/acme')?.queued, true);
  });
});
