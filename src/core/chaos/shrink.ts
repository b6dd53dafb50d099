/**
 * Shrinking a divergence to the smallest case that still diverges (docs/chaos.md, "Shrinking"):
 * delta debugging (Zeller's ddmin) over the perturbation's operations, then over the deliveries,
 * then each operation made simpler, repeated until nothing more can go — as property-based testing
 * tools shrink a failing input. Every candidate is a real run; the same case is never run twice.
 */
import { restrict, simpler, type Case } from './plan';

/** Whether a case still diverges: one perturbed run and (cached) one clean run. */
export type StillFails = (c: Case) => Promise<boolean>;

/** Stops shrinking once this many candidates have been run; the report says so. */
export class ShrinkBudget {
  runs = 0;
  constructor(readonly limit: number) {}
  get spent(): boolean {
    return this.runs >= this.limit;
  }
}

/**
 * A 1-minimal sublist of `items` that still fails: removing any one more item makes it pass
 * (unless the budget ran out first). The empty list is tried first.
 */
export async function ddmin<T>(items: readonly T[], fails: (subset: readonly T[]) => Promise<boolean>, budget: ShrinkBudget): Promise<T[]> {
  if (items.length > 0 && !budget.spent && (await fails([]))) return [];
  let current = [...items];
  let parts = 2;
  while (current.length >= 2 && !budget.spent) {
    const size = Math.ceil(current.length / parts);
    const chunks = Array.from({ length: Math.ceil(current.length / size) }, (_, i) => current.slice(i * size, (i + 1) * size));
    let reduced = false;
    for (const chunk of chunks) {
      if (budget.spent) break;
      if (chunks.length > 1 && (await fails(chunk))) {
        [current, parts, reduced] = [chunk, 2, true];
        break;
      }
    }
    for (let i = 0; !reduced && i < chunks.length && !budget.spent; i++) {
      const complement = chunks.filter((_, j) => j !== i).flat();
      if (await fails(complement)) [current, parts, reduced] = [complement, Math.max(parts - 1, 2), true];
    }
    if (reduced) continue;
    if (parts >= current.length) break;
    parts = Math.min(current.length, parts * 2);
  }
  return current;
}

/** The smallest case found that still fails, starting from `start` (which fails). */
export async function shrinkCase(start: Case, stillFails: StillFails, budget: ShrinkBudget): Promise<Case> {
  let best = start;
  for (let changed = true; changed && !budget.spent;) {
    changed = false;
    const ops = await ddmin(best.ops, (subset) => stillFails({ ...best, ops: subset }), budget);
    if (ops.length < best.ops.length) [best, changed] = [{ ...best, ops }, true];
    const kept = await ddmin(best.kept, (subset) => stillFails(restrict(best, subset)), budget);
    if (kept.length < best.kept.length) [best, changed] = [restrict(best, kept), true];
    for (let i = 0; i < best.ops.length && !budget.spent; i++) {
      for (const op of simpler(best.ops[i]!)) {
        const candidate = { ...best, ops: best.ops.map((o, j) => (j === i ? op : o)) };
        if (await stillFails(candidate)) {
          [best, changed] = [candidate, true];
          break;
        }
      }
    }
  }
  return best;
}
