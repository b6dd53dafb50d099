// The chaos results page, built by a pure function from a report read with the contract's parser:
// strict CSP, escaped data, a verdict per perturbation, the shrunk case of the chosen failure, its
// timeline's state diff at the chosen step, and Replay this sequence with how it went.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHAOS_FORMAT, parseChaosReport, type ChaosFailure, type ChaosReport } from '../../../../src/core/contract/chaos';
import { chaosHtml, failuresOf } from '../../../../src/vscode/chaos/chaosHtml';

const NONCE = 'bm9uY2Vub25jZQ==';
const HOSTILE = '<img src=x onerror=alert(1)>';

const failure: ChaosFailure = {
  perturbation: 'concurrent',
  seed: 5,
  run: 1,
  perturbed: ['03-payment-cus_1, 05-payment-cus_1 (both for /webhooks/api/cus_1) sent at once'],
  fixtures: ['03-payment-cus_1', '05-payment-cus_1'],
  sends: [
    { step: 1, fixture: '03-payment-cus_1', file: '03-payment-cus_1.json', kind: 'delivery', deliveryId: 'pay_3', status: 200 },
    { step: 1, fixture: '05-payment-cus_1', file: '05-payment-cus_1.json', kind: 'delivery', deliveryId: 'pay_5', status: 200 },
  ],
  firstDivergence: { step: 1, sent: '03-payment-cus_1 + 05-payment-cus_1 at once' },
  differences: [
    {
      entity: 'LedgerAgent/api-cus_1',
      part: 'state',
      path: 'balance',
      expected: 80,
      actual: 50,
      line: 'LedgerAgent/api-cus_1 state balance: clean run 80, this run 50',
    },
  ],
  timeline: [
    {
      step: 1,
      sent: '03-payment-cus_1 + 05-payment-cus_1 at once',
      expected: { 'LedgerAgent/api-cus_1': { balance: 80, payments: 2 } },
      actual: { 'LedgerAgent/api-cus_1': { balance: 50, payments: 1 } },
      differences: ['LedgerAgent/api-cus_1 state balance: clean run 80, this run 50'],
    },
    {
      step: 2,
      sent: `${HOSTILE} (redelivery)`,
      expected: { 'LedgerAgent/api-cus_1': { balance: 80, payments: 2 } },
      actual: { 'LedgerAgent/api-cus_1': { balance: 80, payments: 2 } },
      differences: [],
    },
  ],
  replay: '/ws/.hookbench/fixtures/ledger/.chaos/concurrent-5',
  shrunkFrom: { fixtures: 5, sends: 5 },
  shrinkRuns: 13,
};

const report: ChaosReport = parseChaosReport(
  JSON.stringify({
    format: CHAOS_FORMAT,
    suite: '/ws/.hookbench/fixtures/ledger',
    fixtures: 5,
    worker: 'worker/index.ts',
    seed: 5,
    runs: 5,
    baseline: { entities: ['LedgerAgent/api-cus_1', 'LedgerAgent/api-cus_2'], statuses: { '200': 5 }, ms: 323 },
    noise: [],
    excluded: [],
    verdicts: [
      { perturbation: 'duplicates', verdict: 'ok', runs: 5, sends: 33, note: 'each final state as a clean run’s' },
      { perturbation: 'concurrent', verdict: 'FAIL', runs: 1, sends: 5, failure },
      { perturbation: 'stale', verdict: 'n/a', runs: 0, sends: 0, note: `no fixture signs a timestamp ${HOSTILE}` },
    ],
    ms: 4200,
  } satisfies ChaosReport),
);

describe('the chaos results page', () => {
  it('allows only its own nonce’d style and script, and escapes what the report holds', () => {
    const html = chaosHtml(NONCE, { report, selected: 'concurrent', step: 1 });
    assert.match(html, new RegExp(`content="default-src 'none'; style-src 'nonce-${NONCE}'; script-src 'nonce-${NONCE}'"`));
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  });

  it('shows one row per perturbation with its verdict, a failure’s row choosing it', () => {
    const html = chaosHtml(NONCE, { report, step: 0 });
    assert.match(html, /1 perturbation changed the outcome/);
    assert.match(html, /<tr class="ok"><td class="verdict">ok<\/td><td>duplicates<\/td>/);
    assert.match(
      html,
      /<tr class="fail" data-command="select" data-arg="concurrent"><td class="verdict">FAIL<\/td><td>concurrent<\/td>.*shrunk to 2 fixtures and 2 sends \(from 5 and 5\)/,
    );
    assert.match(html, /<td class="verdict">n\/a<\/td><td>stale<\/td>/);
    assert.doesNotMatch(html, /id="failure"/, 'no failure is shown until one is chosen');
  });

  it('shows the chosen failure’s shrunk case: what was done, the sends in order, the differences, Replay this sequence', () => {
    const html = chaosHtml(NONCE, { report, selected: 'concurrent', step: 0 });
    assert.match(html, /<ul id="perturbed"><li>03-payment-cus_1, 05-payment-cus_1 \(both for \/webhooks\/api\/cus_1\) sent at once<\/li>/);
    assert.match(
      html,
      /<tr><td class="num">1<\/td><td>03-payment-cus_1<\/td><td>delivery<\/td><td class="num">200<\/td><td><code>pay_3<\/code><\/td><\/tr><tr><td class="num">1<\/td><td>05-payment-cus_1<\/td>/,
    );
    assert.match(html, /<ul id="differences"><li>LedgerAgent\/api-cus_1 state balance: clean run 80, this run 50<\/li>/);
    assert.match(html, /<button data-command="replay" id="replay">Replay this sequence<\/button>.*\.chaos\/concurrent-5/);
  });

  it('draws the timeline’s step as the state timeline draws a diff, the clean run against this one, with Prev/Next', () => {
    const first = chaosHtml(NONCE, { report, selected: 'concurrent', step: 0 });
    assert.match(first, /<button data-command="prev" disabled>◀ Prev<\/button><button data-command="next">Next ▶<\/button>/);
    assert.match(first, /step 1 of 2: 03-payment-cus_1 \+ 05-payment-cus_1 at once <span class="fail">\(the first step that differs\)/);
    assert.match(first, /<th>Clean run<\/th><th>This run<\/th>/);
    assert.match(first, /<tr class="changed"><td><code>balance<\/code><\/td><td>changed<\/td><td><code>80<\/code><\/td><td><code>50<\/code><\/td><\/tr>/);
    const second = chaosHtml(NONCE, { report, selected: 'concurrent', step: 1 });
    assert.match(second, /<button data-command="next" disabled>Next ▶<\/button>/);
    assert.match(second, /step 2 of 2/);
    assert.match(second, /<h4>LedgerAgent\/api-cus_1<\/h4><p class="muted">as the clean run<\/p>/);
  });

  it('says how the last replay went', () => {
    const still = chaosHtml(NONCE, { report, selected: 'concurrent', step: 0, replayed: { perturbation: 'concurrent', passed: 1, failed: 1 } });
    assert.match(still, /<span id="replayed" class="fail">replayed: 1 passed, 1 failed — the case still fails/);
    const fixed = chaosHtml(NONCE, { report, selected: 'concurrent', step: 0, replayed: { perturbation: 'concurrent', passed: 2, failed: 0 } });
    assert.match(fixed, /<span id="replayed" class="ok">replayed: 2 passed, 0 failed — every fixture passed/);
  });

  it('lists the failures in the verdicts’ order', () => {
    assert.deepEqual(
      failuresOf(report).map((f) => f.perturbation),
      ['concurrent'],
    );
  });
});
