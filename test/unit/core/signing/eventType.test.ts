// The event type the receiver records with each delivery (docs/explorer.md, "Deliveries"): found
// where the provider's scheme keeps it, in a header or in the payload, JSON or form.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { requestEventType } from '../../../../src/core/signing';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('the event type of a request', () => {
  it('reads a header, a JSON payload or a form payload, as the provider keeps it', () => {
    assert.equal(requestEventType('github', { 'X-GitHub-Event': 'push' }, bytes('{}')), 'push');
    assert.equal(requestEventType('stripe', {}, bytes('{"type":"invoice.paid"}')), 'invoice.paid');
    assert.equal(
      requestEventType('slack', { 'content-type': 'application/x-www-form-urlencoded' }, bytes(`payload=${encodeURIComponent('{"type":"block_actions"}')}`)),
      'block_actions',
    );
  });

  it('has none for an unknown provider, a body that does not parse, or none found', () => {
    assert.equal(requestEventType(null, { 'x-github-event': 'push' }, bytes('{}')), undefined);
    assert.equal(requestEventType('unknown', {}, bytes('{}')), undefined);
    assert.equal(requestEventType('stripe', {}, bytes('{not json')), undefined);
    assert.equal(requestEventType('github', {}, bytes('{}')), undefined);
    // It names rows and tabs: a line break or a page of text from a payload is no event type.
    assert.equal(requestEventType('stripe', {}, bytes('{"type":"paid\\nforged line"}')), undefined);
    assert.equal(requestEventType('stripe', {}, bytes(JSON.stringify({ type: 'x'.repeat(101) }))), undefined);
  });
});
