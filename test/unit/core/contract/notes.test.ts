// A check's outcome as the worker and the sink note it, read back by the deliveries log and the views.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verificationNote, verificationReason } from '../../../../src/core/contract/notes';

describe('verification notes', () => {
  it('note a passed check as valid, and a failed one as its reason and message', () => {
    assert.equal(verificationNote({ valid: true }), 'valid');
    assert.equal(
      verificationNote({ valid: false, reason: 'mismatch', message: 'the signature does not match: the body or the secret differs' }),
      'mismatch: the signature does not match: the body or the secret differs',
    );
  });

  it('read back the reason of a failed check only', () => {
    assert.equal(
      verificationReason(verificationNote({ valid: false, reason: 'no_secret', message: 'no secret configured (set GITHUB_WEBHOOK_SECRET)' })),
      'no_secret',
    );
    assert.equal(verificationReason(verificationNote({ valid: true })), undefined);
    assert.equal(verificationReason(null), undefined);
    assert.equal(verificationReason(undefined), undefined);
  });
});
