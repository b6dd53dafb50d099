// Run Chaos's child process as the extension runs it: the built CLI with `--json --progress` on a
// fixture set and the payments worker's broken `tally` handler; its progress lines as they come,
// its report read with the contract's parser, a cancel that stops it, and the CLI's own one-line
// error for a broken fixture.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChaosCancelled, runChaosProcess } from '../../../../src/vscode/chaos/chaosProcess';
import { stripeEvent, writeSuite } from '../../helpers/chaosFixtures';
import { PAYMENTS } from '../../helpers/chaosRun';
import { projectRoot } from '../../helpers/serveWorker';

const launch = {
  cli: path.join(projectRoot(), 'dist', 'cli.js'),
  args: ['--worker', path.join(PAYMENTS, 'src', 'index.ts')],
  env: { PATH: process.env['PATH'] ?? '' },
  cwd: PAYMENTS,
};
const never = new Promise<void>(() => undefined);

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function suite(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-chaos-vscode-'));
  dirs.push(dir);
  return writeSuite(
    path.join(dir, 'charges'),
    [1, 2].map((n) => stripeEvent(`charge-${n}`, `evt_${n}`, 'cus_1', 'charge.succeeded', { object: 'charge', amount: 100 * n }, '/webhooks/stripe/tally')),
  );
}

describe('the chaos child process', () => {
  it('passes on each progress line as it comes and resolves with the parsed report', async () => {
    const lines: string[] = [];
    const report = await runChaosProcess(launch, { suite: suite(), seed: 42, runs: 1 }, { onProgress: (line) => lines.push(line), cancelled: never });
    assert.equal(report.seed, 42);
    const duplicates = report.verdicts.find((v) => v.perturbation === 'duplicates');
    assert.equal(duplicates?.verdict, 'FAIL');
    assert.ok(duplicates?.failure?.replay && fs.existsSync(duplicates.failure.replay), 'the replay set was written');
    assert.match(lines[0]!, /^hookbench chaos: 2 fixtures in .*charges/);
    assert.ok(
      lines.some((line) => /^FAIL {2}duplicates /.test(line)),
      lines.join('\n'),
    );
  });

  it('rejects with ChaosCancelled when cancelled, the child stopped', async () => {
    await assert.rejects(
      runChaosProcess(launch, { suite: suite(), seed: 1, runs: 1 }, { onProgress: () => undefined, cancelled: Promise.resolve() }),
      ChaosCancelled,
    );
  });

  it('rejects with the CLI’s one line naming a broken fixture', async () => {
    const dir = suite();
    fs.writeFileSync(path.join(dir, '03-broken.json'), '{"format": "nonsense"}');
    await assert.rejects(
      runChaosProcess(launch, { suite: dir, seed: 1, runs: 1 }, { onProgress: () => undefined, cancelled: never }),
      /^Error: hookbench chaos exited with code 2: .*03-broken\.json/,
    );
  });
});
