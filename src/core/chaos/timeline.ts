/**
 * The state timeline of a shrunk case (docs/chaos.md, "Reading a report"): after each step of the
 * perturbed run, what every entity held beside what a clean run of the deliveries sent so far
 * (each once, in the suite's order) holds, and the first step where the two part.
 */
import type { ChaosSend, ChaosTimelineStep } from '../contract/chaos';
import { delivered } from './providerBehaviour';
import type { RunResult } from './runner';
import { compareSnapshots, statesOf, type NoiseMask, type Snapshot } from './snapshot';
import type { ChaosDelivery } from './suite';

/** What a step sent, as a report names it: `02-payment (redelivery)`, `01-a + 02-b at once`. */
export function stepLabel(sends: readonly ChaosSend[]): string {
  const one = (send: ChaosSend) => {
    if (send.kind === 'redelivery') return `${send.fixture} (redelivery)`;
    if (send.kind === 'retry') return `${send.fixture} (retry, attempt ${send.attempt})`;
    if (send.kind === 'stale') return `${send.fixture} (stale copy)`;
    return send.fixture;
  };
  return sends.length === 1 ? one(sends[0]!) : `${sends.map(one).join(' + ')} at once`;
}

export interface Timeline {
  readonly steps: ChaosTimelineStep[];
  readonly first?: { readonly step: number; readonly sent: string };
}

export async function timelineOf(
  observed: RunResult,
  deliveries: readonly ChaosDelivery[],
  cleanSnapshot: (kept: readonly number[]) => Promise<Snapshot>,
  mask: NoiseMask,
): Promise<Timeline> {
  const indexOf = new Map(deliveries.map((d) => [d.file, d.index]));
  const steps: ChaosTimelineStep[] = [];
  let first: Timeline['first'];
  for (let step = 1; step <= observed.after.length; step++) {
    const sentSoFar = observed.sends.filter((send) => send.step <= step);
    const here = observed.sends.filter((send) => send.step === step);
    const kept = [...new Set(sentSoFar.filter((send) => send.kind !== 'stale').map((send) => indexOf.get(send.file)!))].sort((a, b) => a - b);
    const expected = await cleanSnapshot(kept);
    const actual = observed.after[step - 1]!;
    const differences = [
      ...here.filter((send) => send.kind === 'stale' && delivered(send.status)).map((send) => `the stale copy of ${send.fixture} was answered ${send.status}`),
      ...compareSnapshots(expected, actual, mask).map((d) => d.line),
    ];
    const sent = stepLabel(here);
    if (differences.length > 0 && !first) first = { step, sent };
    steps.push({ step, sent, expected: statesOf(expected), actual: statesOf(actual), differences });
  }
  return { steps, ...(first ? { first } : {}) };
}
