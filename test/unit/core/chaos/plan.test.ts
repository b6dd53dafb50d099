// What a perturbation sends (docs/chaos.md, "The perturbations"): the same seed makes the same
// operations; each operation becomes the sends it describes; dropping deliveries drops the
// operations that need them; a burst's serial orders are every order but the suite's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PERTURBATIONS } from '../../../../src/core/contract/chaos';
import { chooseOps, notApplicable } from '../../../../src/core/chaos/perturbations';
import { planOf, restrict, serialOrders, simpler, type Case, type Plan } from '../../../../src/core/chaos/plan';
import { Random, seedFor } from '../../../../src/core/chaos/random';
import { chaosSuite, type ChaosDelivery } from '../../../../src/core/chaos/suite';
import { fixtureOf, stripeEvent } from '../../helpers/chaosFixtures';

/** Six Stripe charges, for cus_1 (0, 2, 4) and cus_2 (1, 3, 5). */
const deliveries: ChaosDelivery[] = chaosSuite(
  Array.from({ length: 6 }, (_, i) => ({
    file: `/suite/0${i + 1}.json`,
    fixture: {
      ...fixtureOf(stripeEvent(`charge-${i + 1}`, `evt_${i + 1}`, `cus_${(i % 2) + 1}`, 'charge.succeeded', { amount: 100 })),
      name: `0${i + 1}-charge`,
    },
  })),
  '/suite',
);
const ALL = deliveries.map((d) => d.index);
const OK = deliveries.map(() => 200);

/** Each step as `name[kind]`, the sends of a burst joined with `+`. */
const shape = (plan: Plan) => plan.steps.map((step) => step.map((s) => `${s.delivery.index}${s.kind === 'delivery' ? '' : `:${s.kind}`}`).join('+'));

describe('a fixture set as chaos sees it', () => {
  it('groups deliveries by the entity the provider names, and keeps each delivery id', () => {
    assert.deepEqual(
      deliveries.map((d) => [d.entity, d.deliveryId, d.file]),
      deliveries.map((_, i) => [`cus_${(i % 2) + 1}`, `evt_${i + 1}`, `0${i + 1}.json`]),
    );
  });
});

describe('choosing what to do', () => {
  for (const perturbation of PERTURBATIONS.filter((p) => p !== 'retry-after-failure')) {
    it(`${perturbation}: the same seed chooses the same operations, another seed others`, () => {
      const ops = (seed: number) => chooseOps(perturbation, deliveries, OK, new Random(seedFor(seed, perturbation, 1)));
      assert.deepEqual(ops(7), ops(7));
      assert.ok(ops(7).length > 0);
      assert.ok([1, 2, 3, 4, 5].some((seed) => JSON.stringify(ops(seed)) !== JSON.stringify(ops(7))));
    });
  }

  it('redelivers only deliveries the endpoint acknowledged, and retries only those that failed', () => {
    const answers = [200, 500, 200, undefined, 200, 200];
    for (let seed = 0; seed < 20; seed++) {
      for (const op of chooseOps('duplicates', deliveries, answers, new Random(seed))) assert.ok(op.kind === 'duplicate' && [0, 2, 4, 5].includes(op.of));
      const retried = chooseOps('retry-after-failure', deliveries, answers, new Random(seed)).map((op) => op.kind === 'retry' && op.of);
      assert.deepEqual(retried, [1, 3]);
    }
  });

  it('reorders and bursts only one entity’s deliveries among themselves', () => {
    for (let seed = 0; seed < 20; seed++) {
      for (const op of chooseOps('reorder', deliveries, OK, new Random(seed)))
        assert.ok(op.kind === 'swap' && deliveries[op.a]!.entity === deliveries[op.b]!.entity);
      for (const op of chooseOps('concurrent', deliveries, OK, new Random(seed)))
        assert.ok(op.kind === 'burst' && new Set(op.members.map((m) => deliveries[m]!.entity)).size === 1);
    }
  });

  it('says why a perturbation has nothing to do', () => {
    const github = chaosSuite([{ file: '/s/1.json', fixture: { ...fixtureOf(stripeEvent('a', 'evt_a', 'cus_1', 'x')), provider: 'github' } }], '/s');
    assert.match(notApplicable('stale', github, [200])!, /signs a timestamp/);
    assert.match(notApplicable('reorder', github, [200])!, /no entity has two deliveries/);
    assert.match(notApplicable('retry-after-failure', deliveries, OK)!, /nothing to retry/);
    assert.equal(notApplicable('duplicates', deliveries, OK), undefined);
  });
});

describe('the sends of a case', () => {
  const plan = (ops: Case['ops'], kept = ALL) => planOf({ perturbation: 'duplicates', kept, ops }, deliveries);

  it('sends each kept delivery once, in the suite’s order, without operations', () => {
    assert.deepEqual(shape(plan([])), ['0', '1', '2', '3', '4', '5']);
  });

  it('puts a redelivery right after the delivery it follows', () => {
    assert.deepEqual(shape(plan([{ kind: 'duplicate', of: 1, after: 3 }])), ['0', '1', '2', '3', '1:redelivery', '4', '5']);
  });

  it('trades the places of two deliveries and leaves the rest where they were', () => {
    assert.deepEqual(shape(plan([{ kind: 'swap', a: 0, b: 4 }])), ['4', '1', '2', '3', '0', '5']);
  });

  it('sends a burst where its first member was', () => {
    assert.deepEqual(shape(plan([{ kind: 'burst', members: [2, 4] }])), ['0', '1', '2+4', '3', '5']);
  });

  it('puts a stale copy before the delivery it precedes, and needs no delivery of its own', () => {
    const stale = { kind: 'stale', of: 5, at: 2, id: 'evt_stale1' } as const;
    assert.deepEqual(shape(plan([stale])), ['0', '1', '5:stale', '2', '3', '4', '5']);
    assert.deepEqual(shape(plan([stale], [])), ['5:stale']);
  });

  it('keeps retry rules aside: retries are sent when an attempt fails', () => {
    const retries = plan([{ kind: 'retry', of: 3, attempts: 2, gap: 1 }]).retries;
    assert.deepEqual([...retries], [[3, { attempts: 2, gap: 1 }]]);
  });

  it('drops the operations whose deliveries are dropped', () => {
    const c: Case = {
      perturbation: 'reorder',
      kept: ALL,
      ops: [
        { kind: 'swap', a: 0, b: 2 },
        { kind: 'swap', a: 1, b: 3 },
      ],
    };
    assert.deepEqual(restrict(c, [0, 1, 2]).ops, [{ kind: 'swap', a: 0, b: 2 }]);
  });

  it('offers simpler versions of an operation: fewer burst members, fewer retries, a redelivery sooner', () => {
    assert.deepEqual(simpler({ kind: 'burst', members: [0, 2, 4] }), [
      { kind: 'burst', members: [2, 4] },
      { kind: 'burst', members: [0, 4] },
      { kind: 'burst', members: [0, 2] },
    ]);
    assert.deepEqual(simpler({ kind: 'retry', of: 1, attempts: 3, gap: 2 }), [
      { kind: 'retry', of: 1, attempts: 1, gap: 2 },
      { kind: 'retry', of: 1, attempts: 3, gap: 0 },
    ]);
    assert.deepEqual(simpler({ kind: 'duplicate', of: 1, after: 3 }), [{ kind: 'duplicate', of: 1, after: 1 }]);
  });

  it('lists the serial orders of bursts, every one but the suite’s', () => {
    const bursts = plan([{ kind: 'burst', members: [0, 2, 4] }]);
    const orders = serialOrders(bursts).map((p) => shape(p).join(' '));
    assert.equal(orders.length, 5);
    assert.ok(!orders.includes('0 2 4 1 3 5'));
    assert.ok(orders.includes('4 2 0 1 3 5'));
  });
});
