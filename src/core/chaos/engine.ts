/**
 * The chaos engine (docs/chaos.md): a fixture set run twice as recorded (the baseline, whose two
 * runs tell noise from data), then each perturbation's seeded runs, each on a fresh data folder,
 * compared with a clean run of the same deliveries; the first divergence of each perturbation is
 * shrunk, given its state timeline, and written as a fixture set that replays it.
 */
import { CHAOS_FORMAT, type ChaosDifference, type ChaosFailure, type ChaosReport, type ChaosVerdict, type Perturbation } from '../contract/chaos';
import type { ProviderName } from '../contract/providers';
import type { Timers } from '../timers';
import { chooseOps, describeOp, notApplicable, type BaselineAnswers } from './perturbations';
import { planOf, serialOrders, type Case, type Plan } from './plan';
import { delivered } from './providerBehaviour';
import { Random, seedFor } from './random';
import { runPlan, type ChaosTarget, type RunResult } from './runner';
import { writeReplaySet } from './replaySet';
import { ShrinkBudget, shrinkCase } from './shrink';
import { compareSnapshots, findNoise, NoiseMask, type Snapshot } from './snapshot';
import type { ChaosDelivery } from './suite';
import { timelineOf } from './timeline';

export interface ChaosOptions {
  /** The fixture folder, as the user named it. */
  readonly suite: string;
  readonly deliveries: readonly ChaosDelivery[];
  readonly target: ChaosTarget;
  readonly secrets: ReadonlyMap<ProviderName, string>;
  readonly seed: number;
  readonly runs: number;
  readonly perturbations: readonly Perturbation[];
  /** Every wait (answers' timeouts) and the clock (signatures, figures). */
  readonly timers: Timers;
  /** Write each shrunk case as a fixture set under `<suite>/.chaos/` (replaySet.ts). */
  readonly writeReplays: boolean;
  /** Told the baseline (a report without verdicts) as soon as it is known. */
  readonly onBaseline?: (report: ChaosReport) => void;
  /** Told each perturbation's verdict as soon as it is known. */
  readonly onVerdict?: (verdict: ChaosVerdict) => void;
  /** Candidates run while shrinking one divergence, at most (default 200). */
  readonly shrinkBudget?: number;
}

/** What never enters a comparison, as the report lists it. */
export const EXCLUDED = [
  "the runtime's own tables (names starting with _, sqlite_ or cf_: the Agents SDK's state row is compared as the state)",
  'hookbench_state_history: the state timeline Hookbench keeps, a record of arrival order by design',
  'INTEGER PRIMARY KEY columns: they number rows in arrival order',
] as const;

export class ChaosEngine {
  private readonly clean = new Map<string, Promise<RunResult>>();
  /** Serial runs of concurrent plans, by their sends. */
  private readonly serial = new Map<string, Promise<RunResult>>();
  /** What the baseline answered each delivery. */
  readonly answers: BaselineAnswers;

  private constructor(
    private readonly options: ChaosOptions,
    readonly baseline: RunResult,
    readonly mask: NoiseMask,
  ) {
    this.clean.set(keyOf(options.deliveries.map((d) => d.index)), Promise.resolve(baseline));
    const index = new Map(options.deliveries.map((d) => [d.file, d.index]));
    const answers: (number | undefined)[] = [];
    for (const send of baseline.sends) answers[index.get(send.file)!] = send.status;
    this.answers = answers;
  }

  /** Runs the baseline twice and finds the noise between the two runs. */
  static async start(options: ChaosOptions): Promise<{ engine: ChaosEngine; ms: number }> {
    const all: Case = { perturbation: 'duplicates', kept: options.deliveries.map((d) => d.index), ops: [] };
    const started = options.timers.now();
    const first = await runPlan(options.target, planOf(all, options.deliveries), options);
    const ms = options.timers.now() - started;
    const second = await runPlan(options.target, planOf(all, options.deliveries), options);
    return { engine: new ChaosEngine(options, first, new NoiseMask(findNoise(first.snapshot, second.snapshot))), ms };
  }

  /** A clean run of `kept` (each once, in the suite's order), run once per set. */
  cleanRun(kept: readonly number[]): Promise<RunResult> {
    const key = keyOf(kept);
    let run = this.clean.get(key);
    if (!run) {
      run = runPlan(this.options.target, planOf({ perturbation: 'duplicates', kept, ops: [] }, this.options.deliveries), this.options);
      this.clean.set(key, run);
    }
    return run;
  }

  /**
   * Whether a perturbed run diverged: it differs from the clean run of its deliveries and, for
   * `concurrent`, from every serial order its bursts could have run in too — ending as one of
   * them is arrival order, which is reorder's to judge, not a lost update.
   */
  async diverges(c: Case, plan: Plan, clean: Snapshot, run: RunResult): Promise<boolean> {
    if (this.differences(clean, run).length === 0) return false;
    if (c.perturbation !== 'concurrent') return true;
    for (const serial of serialOrders(plan)) {
      const key = serial.steps.map((step) => step[0]!.delivery.index).join(',');
      let result = this.serial.get(key);
      if (!result) {
        result = runPlan(this.options.target, serial, this.options);
        this.serial.set(key, result);
      }
      if (compareSnapshots((await result).snapshot, run.snapshot, this.mask).length === 0) return false;
    }
    return true;
  }

  /** How a perturbed run differs from the clean run of its deliveries, answers included. */
  differences(clean: Snapshot, run: RunResult): ChaosDifference[] {
    const accepted = run.sends.filter((send) => send.kind === 'stale' && delivered(send.status));
    return [
      ...accepted.map((send): ChaosDifference => ({
        entity: '(answers)',
        part: 'answer',
        path: send.fixture,
        actual: send.status,
        line: `the stale copy of ${send.fixture} (new id ${send.deliveryId}) was answered ${send.status}: a delivery signed outside the tolerance must be refused`,
      })),
      ...compareSnapshots(clean, run.snapshot, this.mask),
    ];
  }

  /** Runs `perturbation` `runs` times (seeded from `seed`), shrinking the first divergence. */
  async verdict(perturbation: Perturbation, seed = this.options.seed): Promise<ChaosVerdict> {
    const { deliveries, runs } = this.options;
    const na = notApplicable(perturbation, deliveries, this.answers);
    if (na) return { perturbation, verdict: 'n/a', runs: 0, sends: 0, note: na };
    let sends = 0;
    for (let run = 1; run <= runs; run++) {
      const ops = chooseOps(perturbation, deliveries, this.answers, new Random(seedFor(seed, perturbation, run)));
      const c: Case = { perturbation, kept: deliveries.map((d) => d.index), ops };
      const plan = planOf(c, deliveries);
      const result = await runPlan(this.options.target, plan, this.options);
      sends += result.sends.length;
      if (!(await this.diverges(c, plan, this.baseline.snapshot, result))) continue;
      return { perturbation, verdict: 'FAIL', runs: run, sends, failure: await this.failure(c, seed, run, result.sends.length) };
    }
    return { perturbation, verdict: 'ok', runs, sends, note: okNote(perturbation, runs, sends) };
  }

  private async failure(found: Case, seed: number, run: number, sends: number): Promise<ChaosFailure> {
    const { deliveries } = this.options;
    const budget = new ShrinkBudget(this.options.shrinkBudget ?? 200);
    const tried = new Map<string, Promise<boolean>>();
    const stillFails = (c: Case): Promise<boolean> => {
      const key = JSON.stringify(c);
      let outcome = tried.get(key);
      if (!outcome) {
        budget.runs++;
        // One after the other: a burst's sends must not share the process with another run's.
        outcome = this.cleanRun(c.kept).then(async (clean) => {
          const plan = planOf(c, deliveries);
          return this.diverges(c, plan, clean.snapshot, await runPlan(this.options.target, plan, this.options));
        });
        tried.set(key, outcome);
      }
      return outcome;
    };
    const shrunk = await shrinkCase(found, stillFails, budget);
    const observed = await runPlan(this.options.target, planOf(shrunk, deliveries), { ...this.options, observe: true });
    const clean = await this.cleanRun(shrunk.kept);
    const timeline = await timelineOf(observed, deliveries, (kept) => this.cleanRun(kept).then((r) => r.snapshot), this.mask);
    const failure: Omit<ChaosFailure, 'replay'> = {
      perturbation: shrunk.perturbation,
      seed,
      run,
      perturbed: [
        ...describeCase(shrunk, deliveries),
        ...(shrunk.perturbation === 'concurrent'
          ? ['the outcome is none of those the deliveries leave when sent one after the other, in any order: an update was lost between them']
          : []),
      ],
      fixtures: shrunk.kept.map((index) => deliveries[index]!.fixture.name),
      sends: observed.sends,
      ...(timeline.first ? { firstDivergence: timeline.first } : {}),
      differences: this.differences(clean.snapshot, observed),
      timeline: timeline.steps,
      shrunkFrom: { fixtures: found.kept.length, sends },
      shrinkRuns: budget.runs,
    };
    const replay = this.options.writeReplays ? writeReplaySet({ suite: this.options.suite, failure, deliveries, clean, mask: this.mask }) : undefined;
    return { ...failure, ...(replay === undefined ? {} : { replay }) };
  }

  /** The report's noise and figures. */
  report(verdicts: readonly ChaosVerdict[], baselineMs: number, started: number): ChaosReport {
    const statuses: Record<string, number> = {};
    for (const send of this.baseline.sends) statuses[String(send.status ?? 'none')] = (statuses[String(send.status ?? 'none')] ?? 0) + 1;
    return {
      format: CHAOS_FORMAT,
      suite: this.options.suite,
      fixtures: this.options.deliveries.length,
      worker: this.options.target.worker,
      seed: this.options.seed,
      runs: this.options.runs,
      baseline: { entities: Object.keys(this.baseline.snapshot).sort(), statuses, ms: Math.round(baselineMs) },
      noise: this.mask.entries,
      excluded: EXCLUDED,
      verdicts,
      ms: Math.round(this.options.timers.now() - started),
    };
  }
}

const keyOf = (kept: readonly number[]) => [...kept].sort((a, b) => a - b).join(',');

function okNote(perturbation: Perturbation, runs: number, sends: number): string {
  return `${runs} run${runs === 1 ? '' : 's'}, ${sends} sends, each final state as a clean run's${perturbation === 'stale' ? ', every stale copy refused' : ''}`;
}

/** The shrunk case's perturbation in words: a reordering as each entity's order, the rest op by op. */
function describeCase(c: Case, deliveries: readonly ChaosDelivery[]): string[] {
  if (c.perturbation !== 'reorder') return c.ops.map((op) => describeOp(op, deliveries));
  const plan = planOf(c, deliveries);
  const sent = plan.steps.flat().map((s) => s.delivery);
  const entities = [...new Set(c.kept.map((index) => deliveries[index]!.entity))];
  return entities.flatMap((entity) => {
    const order = sent.filter((d) => d.entity === entity);
    const suiteOrder = [...order].sort((a, b) => a.index - b.index);
    if (order.every((d, i) => d === suiteOrder[i])) return [];
    return [`for ${entity}: sent ${order.map((d) => d.fixture.name).join(', then ')} (the suite's order: ${suiteOrder.map((d) => d.fixture.name).join(', ')})`];
  });
}

/** Runs every perturbation asked for and answers the report. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = options.timers.now();
  const { engine, ms } = await ChaosEngine.start(options);
  options.onBaseline?.(engine.report([], ms, started));
  const verdicts: ChaosVerdict[] = [];
  for (const perturbation of options.perturbations) {
    const verdict = await engine.verdict(perturbation);
    options.onVerdict?.(verdict);
    verdicts.push(verdict);
  }
  return engine.report(verdicts, ms, started);
}
