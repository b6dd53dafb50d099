/**
 * Each perturbation's seeded choice of what to do to a fixture set (docs/chaos.md, "The
 * perturbations"), whether it applies at all, and how its operations read in a report.
 */
import type { Perturbation } from '../contract/chaos';
import { PROVIDER_BEHAVIOUR, delivered } from './providerBehaviour';
import type { Op } from './plan';
import type { Random } from './random';
import { byEntity, type ChaosDelivery } from './suite';

/** What the baseline answered each delivery (undefined: no answer within the provider's timeout). */
export type BaselineAnswers = readonly (number | undefined)[];

/** Why `perturbation` has nothing to do to this suite, or undefined when it has. */
export function notApplicable(perturbation: Perturbation, deliveries: readonly ChaosDelivery[], answers: BaselineAnswers): string | undefined {
  switch (perturbation) {
    case 'duplicates':
      return deliveries.some((d) => delivered(answers[d.index]))
        ? undefined
        : 'no delivery was answered 2xx in the baseline: nothing a provider would deliver twice';
    case 'reorder':
    case 'concurrent':
      return byEntity(deliveries).some((group) => group.length >= 2) ? undefined : 'no entity has two deliveries';
    case 'retry-after-failure': {
      const failed = deliveries.filter((d) => !delivered(answers[d.index]));
      if (failed.length === 0) return 'every delivery was answered 2xx in time in the baseline: nothing to retry';
      return failed.some((d) => PROVIDER_BEHAVIOUR[d.fixture.provider].retryDelaysMs.length > 0)
        ? undefined
        : 'the failed deliveries come from providers that do not retry (Twilio)';
    }
    case 'stale':
      return deliveries.some((d) => PROVIDER_BEHAVIOUR[d.fixture.provider].toleranceSeconds !== undefined)
        ? undefined
        : 'no fixture comes from a provider that signs a timestamp (GitHub, Shopify, Twilio and generic sign none: a replay is caught only by its delivery id, which duplicates covers)';
  }
}

const pickSome = <T>(random: Random, items: readonly T[], count: number): T[] => {
  const pool = [...items];
  const chosen: T[] = [];
  while (chosen.length < count && pool.length > 0) chosen.push(pool.splice(random.int(pool.length), 1)[0]!);
  return chosen;
};

/** A delivery id for a stale copy: the old one's prefix (`evt_`, `msg_`) and letters from the seed. */
function staleId(old: string | undefined, random: Random): string {
  const prefix = /^[A-Za-z]+[_-]/.exec(old ?? '')?.[0] ?? '';
  const letters = Array.from({ length: 16 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[random.int(36)]).join('');
  return `${prefix}stale${letters}`;
}

/** The seeded operations of one run of `perturbation` (never empty when it applies). */
export function chooseOps(perturbation: Perturbation, deliveries: readonly ChaosDelivery[], answers: BaselineAnswers, random: Random): Op[] {
  const n = deliveries.length;
  const groups = byEntity(deliveries).filter((group) => group.length >= 2);
  switch (perturbation) {
    case 'duplicates': {
      // A redelivery of a delivery the endpoint acknowledged: a failed one is retry-after-failure's.
      const acknowledged = deliveries.filter((d) => delivered(answers[d.index]));
      return pickSome(random, acknowledged, random.between(1, Math.max(1, Math.ceil(n / 4))))
        .sort((a, b) => a.index - b.index)
        .map((d) => ({ kind: 'duplicate', of: d.index, after: random.between(d.index, Math.min(n - 1, d.index + 3)) }));
    }
    case 'reorder': {
      // Fisher–Yates on each entity's deliveries, kept as the swaps it made.
      const ops: Op[] = [];
      for (const group of groups) {
        const order = group.map((d) => d.index);
        for (let i = order.length - 1; i > 0; i--) {
          const j = random.int(i + 1);
          if (j === i) continue;
          ops.push({ kind: 'swap', a: order[i]!, b: order[j]! });
          [order[i], order[j]] = [order[j]!, order[i]!];
        }
      }
      return ops.length > 0 ? ops : [{ kind: 'swap', a: groups[0]![0]!.index, b: groups[0]![1]!.index }];
    }
    case 'concurrent': {
      const ops: Op[] = [];
      for (const group of groups) {
        for (let i = 0; i < group.length - 1;) {
          if (!random.chance(0.5)) {
            i++;
            continue;
          }
          const size = random.between(2, Math.min(4, group.length - i));
          ops.push({ kind: 'burst', members: group.slice(i, i + size).map((d) => d.index) });
          i += size;
        }
      }
      if (ops.length > 0) return ops;
      const group = groups[random.int(groups.length)]!;
      const at = random.int(group.length - 1);
      return [{ kind: 'burst', members: [group[at]!.index, group[at + 1]!.index] }];
    }
    case 'retry-after-failure':
      return deliveries
        .filter((d) => !delivered(answers[d.index]) && PROVIDER_BEHAVIOUR[d.fixture.provider].retryDelaysMs.length > 0)
        .map((d) => ({
          kind: 'retry',
          of: d.index,
          attempts: random.between(1, Math.min(3, PROVIDER_BEHAVIOUR[d.fixture.provider].retryDelaysMs.length)),
          gap: random.int(3),
        }));
    case 'stale': {
      const signed = deliveries.filter((d) => PROVIDER_BEHAVIOUR[d.fixture.provider].toleranceSeconds !== undefined);
      return pickSome(random, signed, random.between(1, Math.max(1, Math.ceil(n / 8))))
        .sort((a, b) => a.index - b.index)
        .map((d) => ({ kind: 'stale', of: d.index, at: random.int(n + 1), id: staleId(d.deliveryId, random) }));
    }
  }
}

/** What an op did, in words, for the report. */
export function describeOp(op: Op, deliveries: readonly ChaosDelivery[]): string {
  const name = (index: number) => deliveries[index]!.fixture.name;
  switch (op.kind) {
    case 'duplicate': {
      const id = deliveries[op.of]!.deliveryId;
      return `${name(op.of)} delivered again${id ? ` with the same delivery id (${id})` : ''}, as a redelivery`;
    }
    case 'swap':
      return `${name(op.a)} and ${name(op.b)} (both for ${deliveries[op.a]!.entity}) traded places`;
    case 'burst':
      return `${op.members.map(name).join(', ')} (${op.members.length === 2 ? 'both' : 'all'} for ${deliveries[op.members[0]!]!.entity}) sent at once`;
    case 'retry': {
      const { provider } = deliveries[op.of]!.fixture;
      const who = PROVIDER_BEHAVIOUR[provider].resentBy === 'redelivery' ? 'redelivered' : `retried as ${provider} does`;
      return `${name(op.of)} ${who} after each failed attempt, up to ${op.attempts} time${op.attempts === 1 ? '' : 's'}${op.gap > 0 ? `, ${op.gap} send${op.gap === 1 ? '' : 's'} later` : ', at once'}`;
    }
    case 'stale': {
      const { provider } = deliveries[op.of]!.fixture;
      const seconds = (PROVIDER_BEHAVIOUR[provider].toleranceSeconds ?? 0) + STALE_MARGIN_SECONDS;
      return `a copy of ${name(op.of)} with a new delivery id (${op.id}), signed ${seconds} s in the past (${provider} allows ${PROVIDER_BEHAVIOUR[provider].toleranceSeconds} s)`;
    }
  }
}

/** How far past the provider's tolerance a stale copy is signed. */
export const STALE_MARGIN_SECONDS = 60;
