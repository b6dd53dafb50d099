// Shrinking (docs/chaos.md, "Shrinking"): delta debugging finds a smallest failing subset, trying
// the empty one first; a case loses the operations, then the deliveries, it does not need, and
// its operations are made simpler; every candidate is asked about once; a budget stops it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Case } from '../../../../src/core/chaos/plan';
import { ddmin, ShrinkBudget, shrinkCase } from '../../../../src/core/chaos/shrink';

describe('ddmin', () => {
  it('finds the two items that fail together among a hundred', async () => {
    const fails = async (subset: readonly number[]) => subset.includes(17) && subset.includes(83);
    assert.deepEqual(
      await ddmin(
        Array.from({ length: 100 }, (_, i) => i),
        fails,
        new ShrinkBudget(500),
      ),
      [17, 83],
    );
  });

  it('answers the empty list when nothing is needed to fail', async () => {
    assert.deepEqual(await ddmin([1, 2, 3], async () => true, new ShrinkBudget(10)), []);
  });

  it('stops when the budget is spent, keeping what still fails', async () => {
    const budget = new ShrinkBudget(3);
    const fails = async (subset: readonly number[]) => {
      budget.runs++;
      return subset.includes(5);
    };
    const left = await ddmin(
      Array.from({ length: 64 }, (_, i) => i),
      fails,
      budget,
    );
    assert.ok(left.includes(5) && left.length > 1);
    assert.equal(budget.runs, 3);
  });
});

describe('shrinking a case', () => {
  it('keeps only the operation and the deliveries the divergence needs, made as simple as they go', async () => {
    const start: Case = {
      perturbation: 'duplicates',
      kept: [0, 1, 2, 3, 4, 5, 6, 7],
      ops: [
        { kind: 'duplicate', of: 2, after: 5 },
        { kind: 'duplicate', of: 6, after: 7 },
      ],
    };
    const asked = new Set<string>();
    const budget = new ShrinkBudget(200);
    // Fails whenever delivery 2 is redelivered (anywhere).
    const stillFails = async (c: Case) => {
      const key = JSON.stringify(c);
      assert.ok(!asked.has(key), `asked twice about ${key}`);
      asked.add(key);
      budget.runs++;
      return c.kept.includes(2) && c.ops.some((op) => op.kind === 'duplicate' && op.of === 2);
    };
    const memo = new Map<string, Promise<boolean>>();
    const once = (c: Case) => memo.get(JSON.stringify(c)) ?? memo.set(JSON.stringify(c), stillFails(c)).get(JSON.stringify(c))!;
    const shrunk = await shrinkCase(start, once, budget);
    assert.deepEqual(shrunk, { perturbation: 'duplicates', kept: [2], ops: [{ kind: 'duplicate', of: 2, after: 2 }] });
  });
});
