/**
 * The report of `hookbench chaos` (docs/chaos.md): what each perturbation found, and for each
 * divergence its shrunk case — the deliveries in the order sent, the state timeline against a
 * clean run of the same deliveries, the differences and the fixture set that replays it. Declared
 * once here for the CLI that writes it (`--json`) and whatever renders it (the VS Code results
 * view reads the same JSON through `parseChaosReport`).
 */

/** The `format` of every report this version writes and reads. */
export const CHAOS_FORMAT = 'hookbench-chaos/1';

/** What the engine does to a fixture set, each modelled on what providers really do (docs/chaos.md). */
export const PERTURBATIONS = ['duplicates', 'reorder', 'concurrent', 'retry-after-failure', 'stale'] as const;
export type Perturbation = (typeof PERTURBATIONS)[number];

export function isPerturbation(name: string): name is Perturbation {
  return (PERTURBATIONS as readonly string[]).includes(name);
}

/**
 * How a delivery was sent: as recorded (`delivery`); again with the same delivery id, as a
 * provider's redelivery (`redelivery`); again after a failure, as the provider's retry (`retry`);
 * or as a copy signed outside the provider's tolerance (`stale`). Every send is signed afresh.
 */
export type SendKind = 'delivery' | 'redelivery' | 'retry' | 'stale';

/** An instance as a report names it: `<binding>/<name>` (`WEBHOOK_AGENT/acme-widgets`). */
export type EntityKey = string;

/** One request as sent in a run, with its answer. */
export interface ChaosSend {
  /** 1-based; the sends of one burst (`concurrent`) share a step. */
  readonly step: number;
  /** The fixture's name. */
  readonly fixture: string;
  /** The fixture's file, relative to the suite's folder. */
  readonly file: string;
  readonly kind: SendKind;
  /** The provider's attempt number of a retry (2 for the first retry). */
  readonly attempt?: number;
  readonly deliveryId?: string;
  /** The answer's status; absent when none came within the provider's timeout. */
  readonly status?: number;
}

/** One way a run's final data differs from the clean run's (noise left out). */
export interface ChaosDifference {
  readonly entity: EntityKey;
  /** `state` (the agent's state row), `storage` (ctx.storage's keys), `table <name>`, or `answer` (a stale send accepted). */
  readonly part: string;
  /** Where in it: a dotted state path, a storage key, a row. */
  readonly path: string;
  /** Absent when the clean run has nothing there. */
  readonly expected?: unknown;
  readonly actual?: unknown;
  /** The difference as one line a newcomer can read. */
  readonly line: string;
}

/** The state of each entity after one step of the shrunk run, beside a clean run's. */
export interface ChaosTimelineStep {
  readonly step: number;
  /** What was sent at this step, e.g. `02-payment (redelivery)`. */
  readonly sent: string;
  /** Each entity's state after a clean run of the deliveries sent so far (each once, in the suite's order). */
  readonly expected: Readonly<Record<EntityKey, unknown>>;
  readonly actual: Readonly<Record<EntityKey, unknown>>;
  /** Empty while the two agree. */
  readonly differences: readonly string[];
}

/** A divergence, shrunk to the smallest case that still diverges. */
export interface ChaosFailure {
  readonly perturbation: Perturbation;
  readonly seed: number;
  /** Which of the `--runs` found it (1-based). */
  readonly run: number;
  /** What the perturbation did in the shrunk case, in words. */
  readonly perturbed: readonly string[];
  /** The fixtures of the shrunk case, in the suite's order. */
  readonly fixtures: readonly string[];
  /** Every send of the shrunk case, in the order sent. */
  readonly sends: readonly ChaosSend[];
  /** The first step after which the state timeline differs from the clean run's. */
  readonly firstDivergence?: { readonly step: number; readonly sent: string };
  readonly differences: readonly ChaosDifference[];
  readonly timeline: readonly ChaosTimelineStep[];
  /** The folder the shrunk case was written to as a fixture set (`hookbench replay` runs it). */
  readonly replay?: string;
  /** The size of the case before shrinking. */
  readonly shrunkFrom: { readonly fixtures: number; readonly sends: number };
  /** Runs the shrinking took. */
  readonly shrinkRuns: number;
}

export type Verdict = 'ok' | 'FAIL' | 'n/a';

export interface ChaosVerdict {
  readonly perturbation: Perturbation;
  readonly verdict: Verdict;
  /** Runs made (each on a fresh data folder), before any shrinking. */
  readonly runs: number;
  /** Requests sent over those runs. */
  readonly sends: number;
  /** Why a perturbation does not apply, or what `ok` covered. */
  readonly note?: string;
  readonly failure?: ChaosFailure;
}

/** Something that differed between two identical baseline runs: masked in every comparison. */
export interface NoiseEntry {
  readonly entity: EntityKey;
  readonly part: string;
  readonly path: string;
  /** Its value in each baseline run. */
  readonly values: readonly [unknown, unknown];
}

export interface ChaosReport {
  readonly format: typeof CHAOS_FORMAT;
  /** The fixture folder, as given. */
  readonly suite: string;
  readonly fixtures: number;
  /** `built-in` or the worker's entry. */
  readonly worker: string;
  readonly seed: number;
  readonly runs: number;
  readonly baseline: {
    readonly entities: readonly EntityKey[];
    /** How many sends got each status (`none`: no answer in time). */
    readonly statuses: Readonly<Record<string, number>>;
    /** One baseline run's time: what each perturbed run costs, roughly. */
    readonly ms: number;
  };
  readonly noise: readonly NoiseEntry[];
  /** What is never compared, and why (the runtime's own tables, arrival-order row ids). */
  readonly excluded: readonly string[];
  readonly verdicts: readonly ChaosVerdict[];
  readonly ms: number;
}

/** `hookbench chaos`'s exit code for a finished report: 1 when a perturbation diverged. */
export function chaosExitCode(report: ChaosReport): 0 | 1 {
  return report.verdicts.some((v) => v.verdict === 'FAIL') ? 1 : 0;
}

/** A report read back: throws naming what is wrong with anything that is not one. */
export function parseChaosReport(text: string): ChaosReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`not a chaos report: ${(error as Error).message}`);
  }
  const report = raw as Partial<ChaosReport> | null;
  if (typeof report !== 'object' || report === null || report.format !== CHAOS_FORMAT) throw new Error(`not a chaos report: format must be "${CHAOS_FORMAT}"`);
  if (!Array.isArray(report.verdicts) || report.verdicts.some((v) => !isPerturbation(String((v as Partial<ChaosVerdict>).perturbation))))
    throw new Error('not a chaos report: verdicts must name perturbations');
  if (!Array.isArray(report.noise) || typeof report.baseline !== 'object') throw new Error('not a chaos report: baseline and noise are missing');
  return report as ChaosReport;
}
