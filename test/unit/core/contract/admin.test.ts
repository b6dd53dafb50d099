// docs/admin-api.md and the contract module say the same thing: every route and every live message
// the contract declares is documented, and the doc names none the contract does not declare.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ADMIN_ROUTES } from '../../../../src/core/contract/admin';
import { LIVE_MESSAGE_TYPES } from '../../../../src/core/contract/live';
import { deliveryChannel, noteDelivery, openDeliveryChannel, receivedNotes } from '../../../../src/core/contract/notes';

function adminDoc(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('no package.json above the tests');
    dir = parent;
  }
  return fs.readFileSync(path.join(dir, 'docs', 'admin-api.md'), 'utf8');
}

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

describe('docs/admin-api.md against src/core/contract', () => {
  const doc = adminDoc();

  it('documents exactly the routes the contract declares', () => {
    // A route is written `METHOD /__hookbench/…` in code spans; a query string is not part of it.
    const documented = [...doc.matchAll(/`(GET|POST|DELETE) (\/__hookbench\/[^`?\s]*)(?:\?[^`]*)?`/g)].map(([, method, route]) => `${method} ${route}`);
    assert.deepEqual(sorted(documented), sorted(ADMIN_ROUTES));
  });

  it('documents exactly the live messages the contract declares', () => {
    const documented = [...doc.matchAll(/\{"type": "([a-z]+)"/g)].map(([, type]) => type!);
    assert.deepEqual(sorted(documented), sorted(LIVE_MESSAGE_TYPES));
  });
});

describe('delivery notes', () => {
  it('travel in the channel the receiver put on the request it handed the worker', () => {
    const request = new Request('http://127.0.0.1/webhooks/github', { method: 'POST' });
    const channel = openDeliveryChannel(request);
    noteDelivery(request, { provider: 'github', entity: 'acme/widgets', verification: 'valid' });
    noteDelivery(request, { event: 'd-1', eventType: 'push', stored: false });
    assert.deepEqual(receivedNotes(channel), {
      provider: 'github',
      entity: 'acme/widgets',
      verification: 'valid',
      event: 'd-1',
      eventType: 'push',
      stored: false,
    });
  });

  it('are absent when no one noted, never on the wire, and nowhere without a channel', () => {
    // A header from the wire (a client, an upstream a worker proxies) labels nothing.
    const fromWire = new Request('http://127.0.0.1/', { headers: { 'x-hookbench-provider': 'github' } });
    assert.deepEqual(receivedNotes(openDeliveryChannel(fromWire)), {});
    const noted = new Request('http://127.0.0.1/');
    openDeliveryChannel(noted);
    noteDelivery(noted, { provider: 'github' });
    assert.equal(
      [...noted.headers.keys()].some((name) => name.startsWith('x-hookbench')),
      false,
    );
    const bare = new Request('http://127.0.0.1/');
    noteDelivery(bare, { provider: 'github' });
    assert.equal(deliveryChannel(bare), undefined);
  });

  it('keep only well-formed fields, cut to a bounded length', () => {
    const request = new Request('http://127.0.0.1/');
    const channel = openDeliveryChannel(request);
    noteDelivery(request, { provider: 42, entity: 'x'.repeat(5000), stored: 'false' } as never);
    assert.deepEqual(receivedNotes(channel), { entity: 'x'.repeat(2048) });
  });
});
