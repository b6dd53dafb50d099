// Real deliveries in, in the real VS Code: Expose Receiver with smee, against a local relay that
// speaks smee.io's protocol; a provider's delivery posted to the channel reaches its agent, and the
// Deliveries view says it came through smee.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import { SmeeRelay } from '../unit/helpers/smeeRelay';
import { adminClient, api, withSecret } from './helpers';
import { untilRows } from './treeViews';

describe('Expose Receiver (smee, against a local relay)', () => {
  let relay: SmeeRelay;
  before(async () => {
    relay = await SmeeRelay.start();
  });
  after(async () => {
    await vscode.commands.executeCommand('hookbench.expose.stop');
    await relay.close();
  });

  it('forwards a channel delivery to the receiver: the agent stores it, Deliveries shows it came via smee', async () => {
    const hookbench = await api();
    await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', 'expose-secret');
    const channel = relay.channel();
    await vscode.commands.executeCommand('hookbench.secret.set', 'HOOKBENCH_SMEE_CHANNEL', channel);
    const publicUrl = await vscode.commands.executeCommand<string>('hookbench.expose.start', 'smee');
    assert.equal(publicUrl, channel);
    await relay.subscribed(1);

    // Compact JSON: smee's re-encoding gives back the very bytes GitHub signed.
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'Acme/Relayed' }, pusher: { name: 'zoe' }, commits: [] });
    const { headers } = schemeFor('github').sign({ secret: 'expose-secret', body: Buffer.from(body) });
    const posted = await fetch(channel, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': '6f1c1a3e-2b0a-4f4e-9a55-3c2e7b3f0a11' } });
    assert.equal(posted.status, 200);

    await untilRows('Agents', ['webhook-agent'], (rows) => rows.some((row) => row.label === 'acme-relayed'));
    const relayed = (await (await adminClient(hookbench)).deliveries(50)).find((d) => d.path === '/webhooks/github' && d.source?.name === 'smee');
    assert.equal(relayed?.status, 200);
    // The Deliveries view says it came through smee.
    const rows = await untilRows('Deliveries', [], (list) => list.some((row) => row.label === 'push · acme-relayed' && /^200 verified · via smee/.test(row.description)));
    assert.match(rows.find((row) => /smee/.test(row.description))!.description, /smee/);
  });
});
