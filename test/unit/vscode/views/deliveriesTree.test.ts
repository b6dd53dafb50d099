// How the Deliveries view names a provider's retries (docs/chaos.md, "Provider retries while
// developing"): what comes next on the failed attempt, and each retry as the provider's.
import '../../helpers/vscodeShim';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retryLabel, sourceLabel } from '../../../../src/vscode/views/deliveriesTree';

describe('the Deliveries view and serve --retries', () => {
  const at = Date.parse('2026-11-25T10:00:00Z');
  const next = { retry: 2, retries: 8, at: new Date(at + 4_000).toISOString() };

  it('says when the next retry comes: "retry 2 of 8 in 4.0 s", then that it was sent', () => {
    assert.equal(retryLabel(next, at), 'retry 2 of 8 in 4.0 s');
    assert.equal(retryLabel({ ...next, at: new Date(at + 125_000).toISOString() }, at), 'retry 2 of 8 in 125 s');
    assert.equal(retryLabel(next, at + 4_000), 'retry 2 of 8 sent');
    assert.equal(retryLabel(undefined, at), undefined);
  });

  it('names a retry as the provider’s, with its number', () => {
    assert.equal(sourceLabel({ kind: 'retry', of: '6f1c0000-0000-0000-0000-000000000000', retry: 2 }, new Map()), 'provider retry 2');
  });
});
