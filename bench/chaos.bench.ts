// Chaos over 100 fixtures with every perturbation: `hookbench chaos` spawned on 100 Stripe charges
// for 10 customers (three of them answered 500 by the handler, so retry-after-failure applies too),
// 5 runs of each perturbation, against the payments worker's correct handler (`charge-atomic`:
// nothing diverges) and a broken one (`tally`: a duplicate is counted, found and shrunk). Each
// run's baseline time is measured in the same run (the report's baseline.ms, one pass of the 100
// fixtures on a fresh data folder). Issue target: the whole run under a minute; the first ratio is
// 60 s ÷ the run's time (≥ 1 meets it), the second how many baseline passes the run costs.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseChaosReport } from '../src/core/contract/chaos';
import { stripeEvent, writeSuite } from '../test/unit/helpers/chaosFixtures';
import { report, type BenchResult } from './harness';

const FIXTURES = 100;
const MINUTE_MS = 60_000;
const root = path.resolve(__dirname, '..', '..');
const worker = path.join(root, 'test', 'fixtures', 'workers', 'chaos', 'src', 'index.ts');

function suite(variant: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hb-bench-chaos-${variant}-`));
  return writeSuite(
    dir,
    Array.from({ length: FIXTURES }, (_, i) =>
      stripeEvent(
        `charge-${i + 1}`,
        `evt_${i + 1}`,
        `cus_${i % 10}`,
        'charge.succeeded',
        { object: 'charge', amount: 100 + i, ...(i % 37 === 5 ? { metadata: { receipt: 'fails' } } : {}) },
        `/webhooks/stripe/${variant}`,
      ),
    ),
  );
}

function chaos(variant: string): BenchResult[] {
  const dir = suite(variant);
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [path.join(root, 'dist', 'cli.js'), 'chaos', dir, '--worker', worker, '--seed', '1', '--runs', '5', '--json', '--no-replay'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const ms = performance.now() - started;
  fs.rmSync(dir, { recursive: true, force: true });
  if (run.status !== 0 && run.status !== 1) throw new Error(`hookbench chaos exited ${run.status}: ${run.stderr}`);
  const result = parseChaosReport(run.stdout);
  const verdicts = result.verdicts.map((v) => `${v.perturbation} ${v.verdict}`).join(', ');
  const sends = result.verdicts.reduce((n, v) => n + v.sends, 0);
  const shrinking = result.verdicts.reduce((n, v) => n + (v.failure?.shrinkRuns ?? 0), 0);
  const what = `hookbench chaos, ${FIXTURES} fixtures × every perturbation, 5 runs each, ${variant} (${verdicts}; ${sends} sends${shrinking ? `, ${shrinking} shrinking runs` : ''})`;
  return [
    {
      name: `${what}: whole run; one baseline pass ${result.baseline.ms} ms`,
      unit: 'ms',
      value: ms,
      baseline: 'target (ms)',
      baselineValue: MINUTE_MS,
      ratio: MINUTE_MS / ms,
      target: 1,
    },
    {
      name: `${what}: one baseline pass against the whole run`,
      unit: 'ms',
      value: ms,
      baseline: 'one baseline pass (ms)',
      baselineValue: result.baseline.ms,
      ratio: result.baseline.ms / ms,
    },
  ];
}

report('chaos', [...chaos('charge-atomic'), ...chaos('tally')]);
