// Handlers written to fail one way each (test/fixtures/workers/chaos, Stripe deliveries): each
// gets FAIL from exactly the perturbation that models its bug, shrunk to the smallest case; its
// correct twin passes every perturbation over many seeds (docs/chaos.md).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChaosReport, Perturbation } from '../../../../src/core/contract/chaos';
import { stripeEvent, type Delivery } from '../../helpers/chaosFixtures';
import { chaosReport, PAYMENTS, verdictsOverSeeds } from '../../helpers/chaosRun';

const route = (variant: string) => `/webhooks/stripe/${variant}`;

/** Charges of 100–400 for two customers; `failing` marks one whose receipt fails (a 500 after the total moved). */
function charges(variant: string, failing?: number): Delivery[] {
  return [1, 2, 3, 4].map((n) =>
    stripeEvent(
      `charge-${n}`,
      `evt_charge_${n}`,
      n % 2 ? 'cus_1' : 'cus_2',
      'charge.succeeded',
      { object: 'charge', amount: 100 * n, ...(n === failing ? { metadata: { receipt: 'fails' } } : {}) },
      route(variant),
    ),
  );
}

/** A subscription's life for cus_1 (created, past due, canceled) and cus_2, each event with Stripe's `created`. */
function subscriptions(variant: string): Delivery[] {
  const event = (n: number, customer: string, type: string, status: string, created: number): Delivery => ({
    ...stripeEvent(`sub-${n}`, `evt_sub_${n}`, customer, type, {}, route(variant)),
    body: JSON.stringify({ id: `evt_sub_${n}`, object: 'event', type, created, data: { object: { object: 'subscription', customer, status } } }, null, 2),
  });
  return [
    event(1, 'cus_1', 'customer.subscription.created', 'active', 1000),
    event(2, 'cus_2', 'customer.subscription.created', 'trialing', 1500),
    event(3, 'cus_1', 'customer.subscription.updated', 'past_due', 2000),
    event(4, 'cus_1', 'customer.subscription.deleted', 'canceled', 3000),
    event(5, 'cus_2', 'customer.subscription.updated', 'active', 2500),
  ];
}

const verdicts = (report: ChaosReport) => Object.fromEntries(report.verdicts.map((v) => [v.perturbation, v.verdict]));

interface Bug {
  readonly broken: string;
  readonly correct: string;
  readonly perturbation: Perturbation;
  readonly suite: (variant: string) => Delivery[];
  /** The shrunk case: its fixtures and its sends. */
  readonly fixtures: number;
  readonly sends: number;
}

const BUGS: Bug[] = [
  { broken: 'tally', correct: 'tally-once', perturbation: 'duplicates', suite: (v) => charges(v), fixtures: 1, sends: 2 },
  { broken: 'latest', correct: 'latest-by-created', perturbation: 'reorder', suite: subscriptions, fixtures: 2, sends: 2 },
  { broken: 'charge', correct: 'charge-atomic', perturbation: 'retry-after-failure', suite: (v) => charges(v, 3), fixtures: 1, sends: 2 },
  // One send suffices: a stale copy alone, accepted, changes the state.
  { broken: 'trusting', correct: 'tally-once', perturbation: 'stale', suite: (v) => charges(v), fixtures: 0, sends: 1 },
];

for (const bug of BUGS) {
  describe(`${bug.broken}: ${bug.perturbation}`, () => {
    it(`gets FAIL from ${bug.perturbation} and from no other perturbation`, async () => {
      const report = await chaosReport(PAYMENTS, bug.suite(bug.broken), { seed: 11, runs: 3 });
      for (const [perturbation, verdict] of Object.entries(verdicts(report))) {
        if (perturbation === bug.perturbation) assert.equal(verdict, 'FAIL', perturbation);
        else
          assert.notEqual(
            verdict,
            'FAIL',
            `${perturbation}: ${JSON.stringify(report.verdicts.find((v) => v.perturbation === perturbation)?.failure?.differences)}`,
          );
      }
      const failure = report.verdicts.find((v) => v.perturbation === bug.perturbation)!.failure!;
      assert.equal(failure.fixtures.length, bug.fixtures, JSON.stringify(failure.sends));
      assert.equal(failure.sends.length, bug.sends, JSON.stringify(failure.sends));
      assert.ok(failure.firstDivergence, 'the timeline names the step where the state first differs');
      assert.ok(failure.differences.length > 0);
    });

    it(`${bug.correct} passes every perturbation over many seeds`, async () => {
      const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
      for (const [seed, outcome] of await verdictsOverSeeds(PAYMENTS, bug.suite(bug.correct), seeds)) {
        assert.ok(
          Object.values(outcome).every((verdict) => verdict !== 'FAIL'),
          `seed ${seed}: ${JSON.stringify(outcome)}`,
        );
      }
    });
  });
}
