/**
 * What a perturbation does to a fixture set, as data: a list of small operations (a redelivery, a
 * swap of two deliveries for one entity, a burst sent at once, a retry rule, a stale copy), and
 * the sends they make of a subset of the deliveries. Keeping the operations apart from the
 * deliveries is what lets the shrinker drop either (docs/chaos.md, "Shrinking").
 */
import type { Perturbation, SendKind } from '../contract/chaos';
import type { ChaosDelivery } from './suite';

export type Op =
  /** Delivery `of` sent again with its delivery id, right after delivery `after`'s send. */
  | { readonly kind: 'duplicate'; readonly of: number; readonly after: number }
  /** Deliveries `a` and `b` (one entity's) trade places. */
  | { readonly kind: 'swap'; readonly a: number; readonly b: number }
  /** The members (one entity's) sent at once, where the first of them was. */
  | { readonly kind: 'burst'; readonly members: readonly number[] }
  /** When an attempt of `of` fails, the provider tries again, up to `attempts` times, `gap` sends later each time. */
  | { readonly kind: 'retry'; readonly of: number; readonly attempts: number; readonly gap: number }
  /** A copy of `of` with the delivery id `id`, signed outside the provider's tolerance, sent before delivery `at` (at the end when none is kept from there). */
  | { readonly kind: 'stale'; readonly of: number; readonly at: number; readonly id: string };

/** A case to run: the deliveries kept (suite indexes, ascending) and what is done to them. */
export interface Case {
  readonly perturbation: Perturbation;
  readonly kept: readonly number[];
  readonly ops: readonly Op[];
}

export interface SendSpec {
  readonly delivery: ChaosDelivery;
  readonly kind: SendKind;
  /** A retry's attempt number (2 for the first retry). */
  readonly attempt?: number;
  /** A stale copy's delivery id. */
  readonly staleId?: string;
  /** Why a retry is made: how its attempt before it failed (Slack says so in X-Slack-Retry-Reason). */
  readonly reason?: 'http_error' | 'http_timeout';
}

/** What goes out at one step: one send, or several at once. */
export type Step = readonly SendSpec[];

export interface RetryRule {
  readonly attempts: number;
  readonly gap: number;
}

export interface Plan {
  readonly steps: readonly Step[];
  /** How a failed attempt of each delivery is retried (`retry-after-failure`). */
  readonly retries: ReadonlyMap<number, RetryRule>;
}

/** Whether an op still means something with only `kept` deliveries (a stale copy needs none of them). */
export function opApplies(op: Op, kept: ReadonlySet<number>): boolean {
  switch (op.kind) {
    case 'duplicate':
    case 'retry':
      return kept.has(op.of);
    case 'swap':
      return kept.has(op.a) && kept.has(op.b);
    case 'burst':
      return op.members.filter((m) => kept.has(m)).length >= 2;
    case 'stale':
      return true;
  }
}

/** A case with only the deliveries `kept` and the ops that still apply to them. */
export function restrict(c: Case, kept: readonly number[]): Case {
  const set = new Set(kept);
  return { perturbation: c.perturbation, kept: [...kept].sort((a, b) => a - b), ops: c.ops.filter((op) => opApplies(op, set)) };
}

/** The sends of a case, step by step. */
export function planOf(c: Case, deliveries: readonly ChaosDelivery[]): Plan {
  const kept = new Set(c.kept);
  const ops = c.ops.filter((op) => opApplies(op, kept));
  const order = [...c.kept];
  for (const op of ops) {
    if (op.kind !== 'swap') continue;
    const [i, j] = [order.indexOf(op.a), order.indexOf(op.b)];
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  // Each step as the deliveries it sends; a burst goes out where its first member was.
  let steps: number[][] = order.map((index) => [index]);
  for (const op of ops) {
    if (op.kind !== 'burst') continue;
    const members = new Set(op.members.filter((m) => kept.has(m)));
    const first = steps.findIndex((step) => step.some((index) => members.has(index)));
    const rest = steps.filter((step, at) => at !== first && step.every((index) => !members.has(index)));
    steps = [...rest.slice(0, first), [...members].sort((a, b) => order.indexOf(a) - order.indexOf(b)), ...rest.slice(first)];
  }
  const specs: SendSpec[][] = steps.map((step) => step.map((index) => ({ delivery: deliveries[index]!, kind: 'delivery' as const })));
  const stepOf = (index: number) => steps.findIndex((step) => step.includes(index));
  // Inserted from the last op to the first, so each position refers to the steps before any insert.
  const inserts: { at: number; spec: SendSpec }[] = [];
  for (const op of ops) {
    if (op.kind === 'duplicate') {
      const anchor = Math.max(...c.kept.filter((index) => index <= op.after).map(stepOf), stepOf(op.of));
      inserts.push({ at: anchor + 1, spec: { delivery: deliveries[op.of]!, kind: 'redelivery' } });
    } else if (op.kind === 'stale') {
      const next = c.kept.find((index) => index >= op.at);
      inserts.push({ at: next === undefined ? steps.length : stepOf(next), spec: { delivery: deliveries[op.of]!, kind: 'stale', staleId: op.id } });
    }
  }
  inserts.sort((x, y) => y.at - x.at);
  for (const { at, spec } of inserts) specs.splice(at, 0, [spec]);
  const retries = new Map<number, RetryRule>();
  for (const op of ops) if (op.kind === 'retry') retries.set(op.of, { attempts: op.attempts, gap: op.gap });
  return { steps: specs, retries };
}

/** Smaller versions of one op, simplest first, for the shrinker. */
export function simpler(op: Op): Op[] {
  switch (op.kind) {
    case 'duplicate':
      return op.after > op.of ? [{ ...op, after: op.of }] : [];
    case 'burst':
      return op.members.length > 2 ? op.members.map((_, i) => ({ ...op, members: op.members.filter((_m, j) => j !== i) })) : [];
    case 'retry':
      return [...(op.attempts > 1 ? [{ ...op, attempts: 1 }] : []), ...(op.gap > 0 ? [{ ...op, gap: 0 }] : [])];
    default:
      return [];
  }
}

/** Every order of `items`, the given order first. */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/**
 * The plan's sends one after the other, each burst in another of the orders its members could
 * have run in: a concurrent run that ends as one of these lost nothing to interleaving, whatever
 * order its deliveries happened to arrive in (docs/chaos.md, "concurrent"). At most `limit`.
 */
export function serialOrders(plan: Plan, limit = 24): Plan[] {
  const choices = plan.steps.map((step) => (step.length > 1 ? orders(step) : [[...step]]));
  const plans: Plan[] = [];
  const pick = (at: number, chosen: SendSpec[][]): void => {
    if (plans.length >= limit) return;
    if (at === choices.length) {
      // The suite's order is the clean run, already compared.
      if (chosen.some((steps, i) => steps.some((spec, j) => spec !== plan.steps[i]![j])))
        plans.push({ steps: chosen.flat().map((spec) => [spec]), retries: plan.retries });
      return;
    }
    for (const order of choices[at]!) pick(at + 1, [...chosen, order]);
  };
  pick(0, []);
  return plans;
}
