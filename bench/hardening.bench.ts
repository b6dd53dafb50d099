// The long runs of the hardening tests: the fuzz generators with 20,000 inputs per surface and 100
// rounds of SIGKILL during write bursts (the same test files `npm test` runs briefly). Each figure
// is what passed out of what ran; the target is all of it.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { report, type BenchResult } from './harness';

const tests = path.resolve(__dirname, '..', 'test', 'unit', 'hardening');

/** Runs one test file with the given environment; answers its pass and fail counts. */
function run(file: string, env: Record<string, string>): { pass: number; fail: number; seconds: number } {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--test', '--test-reporter=tap', path.join(tests, file)], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60 * 60_000,
  });
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(result.stdout)?.[1] ?? 0);
  if (count('fail') > 0)
    process.stderr.write(
      result.stdout
        .split('\n')
        .filter((l) => /not ok|error|seed/.test(l))
        .slice(0, 40)
        .join('\n') + '\n',
    );
  return { pass: count('pass'), fail: count('fail'), seconds: (performance.now() - started) / 1000 };
}

const iterations = 20_000;
const rounds = 100;
const fuzz = run('fuzz.test.js', { HOOKBENCH_FUZZ_ITERATIONS: String(iterations) });
const faults = run('faults.test.js', { HOOKBENCH_FAULT_ROUNDS: String(rounds) });
/** What passed out of what ran, as a result whose target is all of it. */
const passed = (name: string, run: { pass: number; fail: number }): BenchResult => ({
  name,
  unit: 'tests',
  value: run.pass,
  baseline: 'tests run',
  baselineValue: run.pass + run.fail,
  ratio: run.pass / Math.max(1, run.pass + run.fail),
  target: 1,
});
const results: BenchResult[] = [
  passed(
    `fuzz: receiver raw HTTP, signature parsers (×5), admin API, render validator (×5), ${iterations} inputs each, ${fuzz.seconds.toFixed(0)} s — tests passed`,
    fuzz,
  ),
  passed(`faults: SIGKILL at random points of write bursts (${rounds} rounds) and a full disk, ${faults.seconds.toFixed(0)} s — tests passed`, faults),
];
report('hardening', results);
