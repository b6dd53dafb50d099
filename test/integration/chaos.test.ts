// Run Chaos in the real workbench (docs/chaos.md, "In VS Code"): the receiver runs the payments
// worker, whose `tally` handler counts a redelivered charge twice; chaos on two charges finds
// duplicates FAIL, the results view shows the shrunk sequence (the charge and its redelivery) and
// the timeline's diff, and Replay this sequence — clicked in the webview, the state check chosen
// in Run Fixtures' prompt — runs the replay set against the receiver and says it still fails.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChaosReport } from '../../src/core/contract/chaos';
import { stripeEvent, writeSuite } from '../unit/helpers/chaosFixtures';
import { api, serveWorkerEntry, startReceiver, withSecret, type HookbenchApi } from './helpers';
import { readWebview, userDoes } from './reporter';

const payments = () => path.join(vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath, 'test', 'fixtures', 'workers', 'chaos');
/** The secret the worker's .dev.vars gives it: Replay signs with the stored one, so they must agree. */
const SECRET = 'whsec_chaos-test';

/** The results page's body as drawn in its webview, once `until` (an expression in its page) holds. */
const shownPage = (until: string) => readWebview<string>('Chaos: chaos-tally (seed 42)', 'document.body.innerHTML', until);

describe('Run Chaos: a fixture set as providers send it, in VS Code', () => {
  let hookbench: HookbenchApi;

  before(async function () {
    this.timeout(90_000);
    hookbench = await api();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await startReceiver();
    await serveWorkerEntry(hookbench, path.join(payments(), 'src', 'index.ts'));
    await withSecret(hookbench, 'STRIPE_WEBHOOK_SECRET', SECRET);
  });

  after(async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await serveWorkerEntry(hookbench, undefined);
  });

  it('finds the double count, shows its shrunk sequence, and replays it against the receiver', async function () {
    this.timeout(120_000);
    const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const suite = writeSuite(
      path.join(root, '.hookbench', 'fixtures', 'chaos-tally'),
      [1, 2].map((n) =>
        stripeEvent(`charge-${n}`, `evt_chaos_${n}`, `cus_${n}`, 'charge.succeeded', { object: 'charge', amount: 100 * n }, '/webhooks/stripe/tally'),
      ),
    );

    const report = await vscode.commands.executeCommand<ChaosReport | undefined>('hookbench.chaos.run', { path: suite, seed: 42, runs: 1 });
    assert.ok(report, `Run Chaos opened no results: ${hookbench.recentLog().slice(-5).join(' | ')}`);
    const html = await shownPage("document.querySelector('tr.fail') !== null");
    assert.match(html, /<tr class="fail current" data-command="select" data-arg="duplicates"><td class="verdict">FAIL<\/td><td>duplicates<\/td>/);
    assert.match(html, /<tr class="ok"><td class="verdict">ok<\/td><td>stale<\/td>/, 'the handler checks Stripe’s timestamp');
    // The shrunk sequence: one charge, then the same charge redelivered with its own event id.
    assert.match(
      html,
      /<tr><td class="num">1<\/td><td>(\d\d-charge-\d)<\/td><td>delivery<\/td><td class="num">200<\/td><td><code>(evt_chaos_\d)<\/code><\/td><\/tr><tr><td class="num">2<\/td><td>\1<\/td><td>redelivery<\/td><td class="num">200<\/td><td><code>\2<\/code><\/td><\/tr>/,
    );
    assert.match(
      html,
      /<tr class="changed"><td><code>charges<\/code><\/td><td>changed<\/td><td><code>1<\/code><\/td><td><code>2<\/code><\/td><\/tr>/,
      'the timeline shows the count the redelivery added',
    );
    const replaySet = report.verdicts.find((v) => v.perturbation === 'duplicates')?.failure?.replay;
    assert.ok(replaySet && fs.existsSync(replaySet), 'the engine wrote the replay set');

    await userDoes({ clickInWebview: '#replay' });
    // Run Fixtures asks what to check: statuses and agent state (this receiver has not seen these charges).
    await userDoes({ waitFor: 'Run Fixtures', press: ['ArrowDown', 'Enter'] });
    const replayed = await shownPage("document.querySelector('#replayed') !== null");
    assert.match(replayed, /<span id="replayed" class="fail">replayed: 1 passed, 1 failed — the case still fails/, 'the replay’s outcome on the page');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
