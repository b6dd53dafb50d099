// Runs the chaos engine as `hookbench chaos` does (real serve in-process on port 0, real sql.js,
// real HTTP, a fresh data folder per run) on a test worker project and a fixture set written for
// the test, without the command line in between.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChaosReport, Perturbation } from '../../../src/core/contract/chaos';
import { PERTURBATIONS } from '../../../src/core/contract/chaos';
import type { ProviderName } from '../../../src/core/contract/providers';
import { ChaosEngine, runChaos, type ChaosOptions } from '../../../src/core/chaos/engine';
import { chaosSuite } from '../../../src/core/chaos/suite';
import { collectFixturePaths, readFixtureFile } from '../../../src/core/fixtures/fixtureFiles';
import { nullLogger } from '../../../src/core/log';
import { findWranglerConfig, parseDevVars, readWranglerConfig } from '../../../src/core/workerConfig/wranglerConfig';
import { realTimers } from '../../../src/core/timers';
import { chaosTarget } from '../../../src/serve/chaosTarget';
import { routeConsole } from '../../../src/serve/consoleRoute';
import { writeSuite, type Delivery } from './chaosFixtures';
import { projectRoot } from './serveWorker';

/** The chaos test workers: the payments worker, and the differential area's ledger (the same code wrangler dev runs). */
export const PAYMENTS = path.join(projectRoot(), 'test', 'fixtures', 'workers', 'chaos');
export const LEDGER = path.join(projectRoot(), 'test', 'differential', 'areas', 'webhook-concurrency');

export interface ChaosSetup {
  readonly suite: string;
  readonly options: ChaosOptions;
  cleanup(): void;
}

/** The engine's options for `deliveries` written as a suite, against the worker project `project`. */
export async function chaosSetup(
  project: string,
  deliveries: readonly Delivery[],
  settings: { seed?: number; runs?: number; perturbations?: readonly Perturbation[]; writeReplays?: boolean } = {},
): Promise<ChaosSetup> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-chaos-test-'));
  const suite = writeSuite(path.join(scratch, 'suite'), deliveries);
  const files = collectFixturePaths([suite]).map(readFixtureFile);
  const config = readWranglerConfig(findWranglerConfig(project)!);
  const secrets = parseDevVars(fs.readFileSync(path.join(project, '.dev.vars'), 'utf8'));
  const runs = path.join(scratch, 'runs');
  fs.mkdirSync(runs);
  const target = await chaosTarget({
    logger: nullLogger,
    worker: { entry: config.main!, config, secrets },
    description: path.basename(project),
    scratch: runs,
  });
  const providers = new Map<ProviderName, string>([
    ['stripe', secrets['STRIPE_WEBHOOK_SECRET'] ?? ''],
    ['generic', secrets['GENERIC_WEBHOOK_SECRET'] ?? ''],
  ]);
  const options: ChaosOptions = {
    suite,
    deliveries: chaosSuite(files, suite),
    target,
    secrets: providers,
    seed: settings.seed ?? 1,
    runs: settings.runs ?? 3,
    perturbations: settings.perturbations ?? PERTURBATIONS,
    timers: realTimers,
    writeReplays: settings.writeReplays ?? false,
  };
  return { suite, options, cleanup: () => fs.rmSync(scratch, { recursive: true, force: true }) };
}

/** Worker code's console lines (a handler's 500 is logged) kept out of the test's output. */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const restore = routeConsole(nullLogger);
  try {
    return await fn();
  } finally {
    restore();
  }
}

/** One whole chaos run, as the command makes it. */
export async function chaosReport(project: string, deliveries: readonly Delivery[], settings: Parameters<typeof chaosSetup>[2] = {}): Promise<ChaosReport> {
  const setup = await chaosSetup(project, deliveries, settings);
  try {
    return await quietly(() => runChaos(setup.options));
  } finally {
    setup.cleanup();
  }
}

/** Every perturbation's verdict for each of `seeds`, on one baseline. */
export async function verdictsOverSeeds(
  project: string,
  deliveries: readonly Delivery[],
  seeds: readonly number[],
  runs = 1,
): Promise<Map<number, Record<Perturbation, string>>> {
  const setup = await chaosSetup(project, deliveries, { runs });
  try {
    return await quietly(async () => {
      const { engine } = await ChaosEngine.start(setup.options);
      const all = new Map<number, Record<Perturbation, string>>();
      for (const seed of seeds) {
        const verdicts = {} as Record<Perturbation, string>;
        for (const perturbation of PERTURBATIONS) verdicts[perturbation] = (await engine.verdict(perturbation, seed)).verdict;
        all.set(seed, verdicts);
      }
      return all;
    });
  } finally {
    setup.cleanup();
  }
}
