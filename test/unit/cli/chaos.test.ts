// `hookbench chaos` as a user runs it: the built CLI on a fixture set and the payments worker
// (test/fixtures/workers/chaos), its report on stdout, its exit codes, the fixture set it writes
// for the shrunk case — which `hookbench replay` fails while the handler has the bug and passes
// once it is fixed — and the same report for the same seed (docs/chaos.md).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseChaosReport, type ChaosReport } from '../../../src/core/contract/chaos';
import { parseFixture, serializeFixture } from '../../../src/core/contract/fixtures';
import { fixturePaths } from '../../../src/core/fixtures/fixtureFiles';
import { stripeEvent, writeSuite } from '../helpers/chaosFixtures';
import { PAYMENTS } from '../helpers/chaosRun';
import { startServe } from '../helpers/serveProcess';
import { projectRoot } from '../helpers/serveWorker';

const CLI = path.join(projectRoot(), 'dist', 'cli.js');
const WORKER = path.join(PAYMENTS, 'src', 'index.ts');

function hookbench(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Three charges for two customers, sent to the payments worker's `variant` handler. */
function suite(variant: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-chaos-cli-'));
  dirs.push(dir);
  return writeSuite(
    path.join(dir, 'charges'),
    [1, 2, 3].map((n) =>
      stripeEvent(
        `charge-${n}`,
        `evt_${n}`,
        n === 2 ? 'cus_2' : 'cus_1',
        'charge.succeeded',
        { object: 'charge', amount: 100 * n },
        `/webhooks/stripe/${variant}`,
      ),
    ),
  );
}

const chaos = (dir: string, ...flags: string[]) => hookbench(['chaos', dir, '--worker', WORKER, '--seed', '42', '--runs', '2', ...flags]);

describe('hookbench chaos', () => {
  it('prints one line per perturbation, then the shrunk failure step by step, and exits 1', () => {
    const dir = suite('tally');
    const run = chaos(dir);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stdout.split('\n');
    assert.match(lines[0]!, /^hookbench chaos: 3 fixtures in .*charges, worker .*index\.ts, seed 42, 2 runs of each perturbation$/);
    assert.ok(
      lines.some((l) => /^FAIL {2}duplicates +run 1: shrunk to 1 fixture and 2 sends/.test(l)),
      run.stdout,
    );
    for (const ok of ['reorder', 'concurrent', 'stale'])
      assert.ok(
        lines.some((l) => new RegExp(`^ok {4}${ok} `).test(l)),
        `${ok}: ${run.stdout}`,
      );
    assert.ok(lines.some((l) => /^n\/a {3}retry-after-failure +every delivery was answered 2xx/.test(l)));
    assert.match(
      run.stdout,
      /\n── duplicates: FAIL \(seed 42, run 1\) ──\nWhat the perturbation did:\n {2}\d\d-charge-\d delivered again with the same delivery id \(evt_\d\), as a redelivery\n/,
    );
    assert.match(run.stdout, /Sent, in this order.*\n {3}1 {2}(\d\d-charge-\d) +200 {2}id evt_\d\n {3}2 {2}\1 \(redelivery\) +200 {2}id evt_\d\n/);
    assert.match(
      run.stdout,
      /first differs from a clean run of the same deliveries after step 2 \(\d\d-charge-\d \(redelivery\)\):\n {2}PaymentsAgent\/tally-cus_\d state charges: clean run 1, this run 2\n/,
    );
    assert.match(run.stdout, /\n {2}hookbench replay .*charges\/\.chaos\/duplicates-42 --expect-state\n/);
    assert.match(
      lines.filter(Boolean).at(-1)!,
      /^1 of 5 perturbations changed the outcome \([\d.]+ s, exit 1\)\. The same seed makes the same sends: --seed 42$/,
    );
  });

  it('writes the shrunk case as fixtures that fail replay until the handler is fixed', async () => {
    const dir = suite('tally');
    assert.equal(chaos(dir, '--perturb', 'duplicates').code, 1);
    const replaySet = path.join(dir, '.chaos', 'duplicates-42');
    const files = fixturePaths(replaySet);
    assert.deepEqual(
      files.map((f) => path.basename(f).replace(/charge-\d/, 'charge-N')),
      ['01-charge-N.json', '02-charge-N-redelivery.json'],
    );
    const replay = async () => {
      const serve = await startServe(['--worker', WORKER, '--no-render', '--data', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-chaos-replay-'))]);
      try {
        return hookbench(['replay', replaySet, '--to', serve.url, '--expect-state', '--env-file', path.join(PAYMENTS, '.dev.vars')]);
      } finally {
        await serve.stop();
      }
    };
    const broken = await replay();
    assert.equal(broken.code, 1, broken.stdout);
    assert.match(broken.stdout, /FAIL {2}02-charge-\d-redelivery .*\n {6}state charges: expected 1, got 2\n/);
    // The fix: the same deliveries to the handler that counts each event once.
    for (const file of files) {
      const fixture = parseFixture(fs.readFileSync(file, 'utf8'), file);
      fs.writeFileSync(
        file,
        serializeFixture({
          ...fixture,
          entity: fixture.entity?.replace('tally-', 'tally-once-'),
          request: { ...fixture.request, path: '/webhooks/stripe/tally-once' },
        }),
      );
    }
    const fixed = await replay();
    assert.equal(fixed.code, 0, fixed.stdout);
  });

  it('prints the report as JSON with --json, the same for the same seed', () => {
    const dir = suite('tally');
    const [first, second] = [chaos(dir, '--json', '--no-replay'), chaos(dir, '--json', '--no-replay')];
    assert.equal(first.code, 1, first.stderr);
    const [a, b] = [parseChaosReport(first.stdout), parseChaosReport(second.stdout)];
    const sends = (r: ChaosReport) =>
      r.verdicts.map((v) => [v.perturbation, v.verdict, v.sends, v.failure?.sends.map((s) => [s.step, s.fixture, s.kind, s.status])]);
    assert.deepEqual(sends(a), sends(b));
    assert.equal(a.verdicts.find((v) => v.perturbation === 'duplicates')?.failure?.replay, undefined, '--no-replay writes nothing');
    assert.equal(fs.existsSync(path.join(dir, '.chaos')), false);
  });

  it('exits 0 when no perturbation changes the outcome', () => {
    const run = chaos(suite('tally-once'), '--perturb', 'duplicates,stale');
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^ok {4}duplicates /m);
    assert.match(run.stdout, /^ok {4}stale .*every stale copy refused$/m);
  });

  it('refuses a broken fixture with exit 2 before sending anything, naming the file and the field', () => {
    const dir = suite('tally');
    const file = path.join(dir, '02-charge-2.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"path": "/webhooks/stripe/tally"', '"path": "https://elsewhere.test/"'));
    const run = chaos(dir);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /02-charge-2\.json: request\.path: must be a path/);
    assert.equal(run.stdout, '');
  });

  it('answers usage errors with exit 2', () => {
    const dir = suite('tally');
    assert.equal(hookbench(['chaos']).code, 2);
    assert.equal(chaos(dir, '--perturb', 'lightning').code, 2);
    assert.equal(chaos(dir, '--runs', '0').code, 2);
    assert.equal(hookbench(['chaos', path.join(dir, 'nowhere')]).code, 2);
    const noSecret = hookbench(['chaos', dir, '--seed', '1']);
    assert.equal(noSecret.code, 2);
    assert.match(noSecret.stderr, /STRIPE_WEBHOOK_SECRET/);
  });
});
