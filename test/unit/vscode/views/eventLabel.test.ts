// An event's row in the Agents view says each thing once: the type and action unless the title
// already says them.
import '../../helpers/vscodeShim';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventLabel } from '../../../../src/vscode/views/agentsTree';

const row = (type: string, action: string | null, title: string) => eventLabel({ type, action, title });

describe("an event's row", () => {
  it('leaves out a type or action the title already says', () => {
    assert.equal(row('orders/create', null, 'orders/create · #1001 · 199.00 USD'), 'orders/create · #1001 · 199.00 USD');
    assert.equal(row('received', null, 'SMS received from +15551234567 to +15557654321'), 'SMS received from +15551234567 to +15557654321');
    assert.equal(row('message', null, 'message in C2147483705'), 'message in C2147483705');
    assert.equal(row('pull_request', 'opened', 'PR #1 opened: Fix the build'), 'pull_request · PR #1 opened: Fix the build');
  });

  it('keeps what the title does not say, and matches whole words only', () => {
    assert.equal(row('invoice.paid', null, 'an invoice was paid · in_1 · 20.00 USD'), 'invoice.paid · an invoice was paid · in_1 · 20.00 USD');
    assert.equal(row('issues', 'created', 'Issue #2 recreated: x'), 'issues · created · Issue #2 recreated: x');
    assert.equal(row('check_run', 'created', 'check_run created on acme/api'), 'check_run created on acme/api');
  });
});
