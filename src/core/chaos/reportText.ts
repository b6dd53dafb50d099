/**
 * A chaos report as text for a terminal (docs/chaos.md, "Reading a report"): one line per
 * perturbation, then each shrunk failure told step by step for someone who has never seen it.
 */
import { chaosExitCode, type ChaosFailure, type ChaosReport, type ChaosSend, type ChaosVerdict, type NoiseEntry } from '../contract/chaos';
import { shown } from './snapshot';

const LABEL_WIDTH = 20;

/** `ok    duplicates           5 runs, 40 sends, …` */
export function verdictLine(verdict: ChaosVerdict): string {
  const head = `${verdict.verdict.padEnd(5)} ${verdict.perturbation.padEnd(LABEL_WIDTH)}`;
  if (verdict.failure) {
    const f = verdict.failure;
    return `${head} run ${f.run}: shrunk to ${plural(f.fixtures.length, 'fixture')} and ${plural(f.sends.length, 'send')} (from ${f.shrunkFrom.fixtures} and ${f.shrunkFrom.sends}) in ${plural(f.shrinkRuns, 'run')}`;
  }
  return `${head} ${verdict.note ?? ''}`.trimEnd();
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The noise, one line per part and path, with the entities it was found in counted. */
export function noiseLines(noise: readonly NoiseEntry[]): string[] {
  const groups = new Map<string, { entities: Set<string>; example: NoiseEntry }>();
  for (const entry of noise) {
    const key = `${entry.part} ${entry.path}`;
    const group = groups.get(key) ?? { entities: new Set<string>(), example: entry };
    group.entities.add(entry.entity);
    groups.set(key, group);
  }
  return [...groups].map(([what, { entities, example }]) => {
    const where = entities.size === 1 ? example.entity : `${entities.size} entities`;
    const path = example.path === '*' ? `${example.part} (all of it)` : what;
    return `${path} in ${where}: ${shown(example.values[0])} then ${shown(example.values[1])}`;
  });
}

/** The lines before the verdicts: what ran and the baseline. */
export function headerLines(report: Pick<ChaosReport, 'suite' | 'fixtures' | 'worker' | 'seed' | 'runs' | 'baseline' | 'noise'>): string[] {
  const statuses = Object.entries(report.baseline.statuses)
    .map(([status, count]) => `${status === 'none' ? 'no answer' : status} ×${count}`)
    .join(', ');
  const noise = noiseLines(report.noise);
  return [
    `hookbench chaos: ${plural(report.fixtures, 'fixture')} in ${report.suite}, worker ${report.worker}, seed ${report.seed}, ${plural(report.runs, 'run')} of each perturbation`,
    `baseline: ${statuses} over ${report.baseline.entities.length} ${report.baseline.entities.length === 1 ? 'entity' : 'entities'}, ${report.baseline.ms} ms a run; run twice, ${noise.length === 0 ? 'nothing differed between the two' : `what differed between the two is masked:`}`,
    ...noise.map((line) => `  ${line}`),
    '',
  ];
}

function failureLines(f: ChaosFailure): string[] {
  const what = (s: ChaosSend) => (s.kind === 'delivery' ? s.fixture : `${s.fixture} (${s.kind === 'retry' ? `retry, attempt ${s.attempt}` : s.kind})`);
  const width = Math.max(...f.sends.map((s) => what(s).length));
  const sent = f.sends.map((s) => {
    const together = f.sends.filter((o) => o.step === s.step).length > 1 ? '  sent at once with the others of this step' : '';
    return `  ${String(s.step).padStart(2)}  ${what(s).padEnd(width)}  ${s.status === undefined ? 'no answer in time' : String(s.status)}${s.deliveryId ? `  id ${s.deliveryId}` : ''}${together}`;
  });
  const timeline = f.timeline.map(
    (step) =>
      `  ${String(step.step).padStart(2)}  ${step.sent}: ${step.differences.length === 0 ? 'as the clean run' : `differs — ${step.differences[0]}${step.differences.length > 1 ? ` (and ${step.differences.length - 1} more)` : ''}`}`,
  );
  return [
    `── ${f.perturbation}: FAIL (seed ${f.seed}, run ${f.run}) ──`,
    'What the perturbation did:',
    ...f.perturbed.map((line) => `  ${line}`),
    'Sent, in this order (each re-signed when sent):',
    ...sent,
    f.firstDivergence
      ? `The state first differs from a clean run of the same deliveries after step ${f.firstDivergence.step} (${f.firstDivergence.sent}):`
      : 'How the end differs from a clean run of the same deliveries:',
    ...f.differences.map((d) => `  ${d.line}`),
    "State after each step (against a clean run of the deliveries sent so far, each once, in the suite's order):",
    ...timeline,
    ...(f.replay
      ? ['Replay it against a fresh receiver running the same worker (it fails until the handler is fixed):', `  hookbench replay ${f.replay} --expect-state`]
      : []),
    '',
  ];
}

/** The whole report, after the header: verdicts, then each failure, then one summary line. */
export function bodyLines(report: ChaosReport): string[] {
  const failed = report.verdicts.filter((v) => v.verdict === 'FAIL');
  return [
    ...failed.flatMap((v) => failureLines(v.failure!)),
    `${failed.length === 0 ? 'No perturbation changed the outcome' : `${failed.length} of ${report.verdicts.length} perturbations changed the outcome`} (${(report.ms / 1000).toFixed(1)} s, exit ${chaosExitCode(report)}). The same seed makes the same sends: --seed ${report.seed}`,
  ];
}

export function reportText(report: ChaosReport): string {
  return [...headerLines(report), ...report.verdicts.map(verdictLine), '', ...bodyLines(report)].join('\n') + '\n';
}
