/**
 * `hookbench chaos <fixtures-dir>`: does to a fixture set what providers do to deliveries —
 * duplicates, reordering, concurrent sends, retries after failures, stale resends — against the
 * built-in worker or the user's, each run on a fresh data folder, and reports every divergence from
 * a clean run shrunk to its smallest case (docs/chaos.md). Exit 0 when nothing diverged, 1 when
 * something did, 2 on a usage error or a broken fixture (nothing is sent then).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chaosExitCode, isPerturbation, PERTURBATIONS, type ChaosReport, type Perturbation } from '../core/contract/chaos';
import { runChaos } from '../core/chaos/engine';
import { bodyLines, headerLines, verdictLine } from '../core/chaos/reportText';
import { chaosSuite } from '../core/chaos/suite';
import { lineLogger, nullLogger } from '../core/log';
import { realTimers } from '../core/timers';
import { chaosTarget } from '../serve/chaosTarget';
import { routeConsole } from '../serve/consoleRoute';
import { parseFlagsAndPositionals, UsageError } from './args';
import { envFileVars, loadFixtures, providerSecret } from './fixtureIo';
import type { CliIo } from './io';
import { resolveWorker, secretsFrom } from './serve';

export const chaosUsage = `Usage: hookbench chaos <fixtures-dir> [--worker FILE] [--config wrangler.jsonc|toml] [--env-file FILE]
         [--seed N] [--runs N] [--perturb ${PERTURBATIONS.join(',')}] [--json] [--progress] [--no-replay] [--verbose]
  Runs the fixture set as recorded, twice (what differs between the two is noise, masked), then
  perturbed as providers really deliver: duplicates (redeliveries with the same delivery id),
  reorder (one entity's deliveries permuted), concurrent (one entity's deliveries sent at once),
  retry-after-failure (a delivery answered 5xx or past the provider's timeout sent again as the
  provider would), stale (a copy signed outside the provider's tolerance, which must be refused).
  Each run starts the worker (yours with --worker/--config, as serve takes them; otherwise the
  built-in worker) on a fresh data folder and compares every entity's agent state, ctx.storage
  and tables with a clean run of the same deliveries. A divergence is shrunk to its smallest case,
  shown step by step and written as a fixture set under <fixtures-dir>/.chaos/<perturbation>-<seed>/
  for hookbench replay (--no-replay writes nothing). --runs N seeded runs per perturbation (default
  5); --seed N makes the same sends again (default: a new seed, printed); --perturb picks some.
  Secrets come from the environment or --env-file, as for serve and replay. One line per
  perturbation (ok / FAIL / n/a) and each failure; --json prints the report as JSON instead
  (--progress: and the baseline and each perturbation's line on stderr as they come).
  Exits 0 when nothing diverged, 1 when something did, 2 on a usage error or a broken fixture.`;

function flags(argv: string[]) {
  return parseFlagsAndPositionals(argv, {
    worker: { type: 'string' },
    config: { type: 'string' },
    'env-file': { type: 'string' },
    seed: { type: 'string' },
    runs: { type: 'string', default: '5' },
    perturb: { type: 'string', default: PERTURBATIONS.join(',') },
    json: { type: 'boolean', default: false },
    progress: { type: 'boolean', default: false },
    'no-replay': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  });
}

function wholeNumber(text: string, flag: string, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) > max) throw new UsageError(`${flag} ${text}: give a whole number from 0 to ${max}`);
  return Number(text);
}

function perturbations(text: string): Perturbation[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !isPerturbation(name));
  if (unknown.length > 0 || names.length === 0) throw new UsageError(`--perturb ${text}: choose from ${PERTURBATIONS.join(', ')}`);
  return PERTURBATIONS.filter((name) => names.includes(name));
}

export async function chaos(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = flags(argv);
  if (positionals.length !== 1) throw new UsageError('name one folder of fixtures (e.g. .hookbench/fixtures/checkout)');
  const suite = positionals[0]!;
  if (!fs.statSync(suite, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${suite} is not a folder of fixtures`);
  const runs = wholeNumber(values.runs, '--runs', 1000);
  if (runs < 1) throw new UsageError('--runs must be 1 or more');
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : wholeNumber(values.seed, '--seed', 2 ** 32 - 1);
  const chosen = perturbations(values.perturb);

  // Everything read and every secret found before the first send: a broken suite sends nothing.
  const files = loadFixtures([suite]);
  const logger = values.verbose ? lineLogger((line) => io.stderr.write(line + '\n'), 'info') : nullLogger;
  const worker = resolveWorker(values, logger);
  const fileVars = envFileVars(worker.envFile);
  const secrets = new Map(files.map(({ fixture }) => [fixture.provider, providerSecret(fixture.provider, io.env, fileVars)]));

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-chaos-'));
  // Worker code's console lines go to the log (or nowhere), never into the report on stdout.
  const restoreConsole = routeConsole(logger);
  try {
    const target = await chaosTarget({
      logger,
      worker: { entry: worker.entry, prebuilt: worker.prebuilt, config: worker.config, secrets: secretsFrom(worker.envFile, io.env, []) },
      description: values.worker || worker.config?.main ? path.relative(process.cwd(), worker.entry) || worker.entry : 'built-in',
      scratch,
    });
    // With --json, stdout holds the report alone: --progress says how far it got on stderr.
    const print = (lines: readonly string[]) => {
      const text = lines.map((line) => `${line}\n`).join('');
      if (!values.json) io.stdout.write(text);
      else if (values.progress) io.stderr.write(text);
    };
    const report: ChaosReport = await runChaos({
      suite,
      deliveries: chaosSuite(files, suite),
      target,
      secrets,
      seed,
      runs,
      perturbations: chosen,
      timers: realTimers,
      writeReplays: !values['no-replay'],
      onBaseline: (baseline) => print(headerLines(baseline)),
      onVerdict: (verdict) => print([verdictLine(verdict)]),
    });
    if (values.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else print(['', ...bodyLines(report)]);
    return chaosExitCode(report);
  } finally {
    restoreConsole();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
