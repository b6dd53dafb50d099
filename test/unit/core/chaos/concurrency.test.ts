// The concurrent perturbation on the differential area's ledger (the same worker and the same
// kind of sends the webhook-concurrency area compares with wrangler dev): a handler that awaits
// outside I/O between reading and writing the balance gets FAIL from concurrent and nothing else,
// shrunk to two deliveries sent at once; the handlers workerd's input gate protects pass every
// perturbation over several seeds (docs/chaos.md, "concurrent"; docs/runtime.md, "Concurrency").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ledgerPayment, type Delivery } from '../../helpers/chaosFixtures';
import { chaosReport, LEDGER, verdictsOverSeeds } from '../../helpers/chaosRun';

/** Five payments, three for cus_1 and two for cus_2. */
const payments = (style: string): Delivery[] => [1, 2, 3, 4, 5].map((n) => ledgerPayment(`pay-${n}`, style, n % 2 ? 'cus_1' : 'cus_2', `pay_${n}`, 10 * n));

describe('concurrent deliveries to a read-await-write handler', () => {
  for (const style of ['api', 'sql']) {
    it(`${style}: FAIL from concurrent alone, shrunk to two deliveries sent at once`, async () => {
      const report = await chaosReport(LEDGER, payments(style), { seed: 5, runs: 3 });
      const failed = report.verdicts.filter((v) => v.verdict === 'FAIL');
      assert.deepEqual(
        failed.map((v) => v.perturbation),
        ['concurrent'],
        JSON.stringify(report.verdicts.map((v) => [v.perturbation, v.verdict])),
      );
      const failure = failed[0]!.failure!;
      assert.equal(failure.fixtures.length, 2);
      assert.deepEqual(
        failure.sends.map((s) => s.step),
        [1, 1],
        'both sent in one step',
      );
      assert.deepEqual(failure.firstDivergence?.step, 1);
    });
  }
});

describe('concurrent deliveries to a handler the input gate protects', () => {
  for (const style of ['rate-first', 'sync', 'storage', 'microtask', 'digest', 'guarded']) {
    it(`${style}: passes every perturbation over several seeds`, async () => {
      for (const [seed, outcome] of await verdictsOverSeeds(LEDGER, payments(style), [1, 2, 3, 4])) {
        assert.ok(
          Object.values(outcome).every((verdict) => verdict !== 'FAIL'),
          `seed ${seed}: ${JSON.stringify(outcome)}`,
        );
      }
    });
  }
});
