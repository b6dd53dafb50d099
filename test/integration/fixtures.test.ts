// A delivery saved as a fixture from the Deliveries view's command, the file checked, and the
// fixture sent again through Send Test Webhook: the second delivery arrives verified; then run as
// a suite from Run Fixtures.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { fixtureBody, parseFixture } from '../../src/core/contract/fixtures';
import type { DeliverySummary } from '../../src/core/contract/deliveries';
import { buildDelivery, findTemplate } from '../../src/core/payloads';
import { schemeFor } from '../../src/core/signing';
import type { SendResult } from '../../src/vscode/sender';
import { adminClient, api, deliveryIds, newDeliveries, withSecret } from './helpers';
import { untilRows } from './treeViews';

const SECRET = 'fixtures-integration-secret';

describe('fixtures: save a delivery, send it again', () => {
  it('saves a delivery as a fixture file without its signature, and the Send command sends it re-signed and verified', async () => {
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
    const delivery = buildDelivery(findTemplate('github', 'push')!, { entity: 'Acme/Fixtures' });
    const signed = schemeFor('github').sign({ secret: SECRET, body: delivery.body });
    const response = await fetch(`${url}/webhooks/github`, { method: 'POST', headers: { ...delivery.headers, ...signed.headers }, body: delivery.body });
    assert.equal(response.status, 200, await response.text());

    // The delivery as the receiver logged it (what the Deliveries view's item holds), once the view shows it.
    const client = await adminClient(hookbench);
    const ofEntity = async () => (await client.deliveries(200)).filter((d: DeliverySummary) => d.entity === 'acme-fixtures');
    await untilRows('Deliveries', [], (rows) => rows.some((row) => row.label === 'push · acme-fixtures' && /^200 verified/.test(row.description)));
    const first = await ofEntity();
    assert.equal(first.length, 1);
    const [received] = first;
    const written = await vscode.commands.executeCommand<string[]>('hookbench.delivery.saveFixture', received, [received], {
      name: 'push-roundtrip',
      overwrite: true,
    });
    const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    assert.deepEqual(written, [path.join(root, '.hookbench', 'fixtures', 'push-roundtrip.json')]);

    const text = fs.readFileSync(written[0]!, 'utf8');
    const fixture = parseFixture(text, written[0]!);
    assert.equal(fixture.provider, 'github');
    assert.equal(fixture.entity, 'acme-fixtures');
    assert.equal(fixture.agent, 'webhook-agent');
    assert.ok(fixtureBody(fixture.request).equals(delivery.body), 'the body bytes are kept');
    assert.equal(fixture.expect?.status, 200);
    assert.deepEqual((fixture.expect?.state as { stats: unknown }).stats, { total: 1, byType: { push: 1 } });
    assert.deepEqual(fixture.expect?.ignore, ['lastEventAt']);
    assert.ok(!text.includes(signed.headers['X-Hub-Signature-256'] ?? 'no signature?'), 'the signature is not in the file');
    assert.ok(!/x-hub-signature|hookbench-source/i.test(text));
    assert.ok(!text.includes(SECRET));

    const known = await deliveryIds(client);
    const sent = await vscode.commands.executeCommand<SendResult>('hookbench.webhook.send', { fixture: written[0], newId: true });
    assert.equal(sent?.status, 200);
    assert.equal(sent?.duplicate, false);
    await newDeliveries(client, known);
    const both = await ofEntity();
    assert.equal(both.length, 2);
    const again = both.find((d) => d.id !== received!.id)!;
    assert.equal(again.verification, 'valid');
    assert.equal(again.source?.kind, 'send');
    assert.equal(again.duplicate, undefined);

    // As a suite: the status still matches (a duplicate now, answered 200); the state has moved
    // on (two pushes where the fixture recorded one), and the run says so.
    const statuses = await vscode.commands.executeCommand<{ passed: number; failed: number }>('hookbench.fixtures.run', {
      path: written[0],
      expectState: false,
    });
    assert.deepEqual(statuses, { passed: 1, failed: 0 });
    const withState = await vscode.commands.executeCommand<{ passed: number; failed: number }>('hookbench.fixtures.run', {
      path: written[0],
      expectState: true,
    });
    assert.deepEqual(withState, { passed: 0, failed: 1 });
  });
});
