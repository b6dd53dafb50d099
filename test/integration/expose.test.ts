// Real deliveries in, in the real VS Code: Expose Receiver with smee, against a local relay that
// speaks smee.io's protocol; a provider's delivery posted to the channel reaches its agent, and the
// Deliveries view says it came through smee.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import { SmeeRelay } from '../unit/helpers/smeeRelay';
import { adminClient, api, until, withSecret } from './helpers';
import { readWorkbench, userDoes } from './reporter';
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
    const posted = await fetch(channel, {
      method: 'POST',
      body,
      headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': '6f1c1a3e-2b0a-4f4e-9a55-3c2e7b3f0a11' },
    });
    assert.equal(posted.status, 200);

    await untilRows('Agents', ['webhook-agent'], (rows) => rows.some((row) => row.label === 'acme-relayed'));
    const relayed = (await (await adminClient(hookbench)).deliveries(50)).find((d) => d.path === '/webhooks/github' && d.source?.name === 'smee');
    assert.equal(relayed?.status, 200);
    // The Deliveries view says it came through smee.
    const rows = await untilRows('Deliveries', [], (list) =>
      list.some((row) => row.label === 'push · acme-relayed' && /^200 verified · via smee/.test(row.description)),
    );
    assert.match(rows.find((row) => /smee/.test(row.description))!.description, /smee/);
  });

  it('when smee cannot make a channel: one line without CLI flags, and the next Expose Receiver asks which provider', async function () {
    const hookbench = await api();
    await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', 'expose-secret');
    await vscode.commands.executeCommand('hookbench.expose.stop');
    await vscode.commands.executeCommand('hookbench.expose.forgetChannel');
    // A smee server that is not there: a port that was free a moment ago.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const settings = vscode.workspace.getConfiguration('hookbench.expose');
    await settings.update('smeeServer', `http://127.0.0.1:${port}`, vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('notifications.clearAll');
      const started = vscode.commands.executeCommand<string | undefined>('hookbench.expose.start', 'smee');
      // Read in the notifications center, once the failure is there: the newest VS Code under test
      // shows no toast (the bell gets its dot), and a center opened before the notification came
      // did not list it.
      await until(
        () => hookbench.recentLog(),
        (lines) => lines.some((line) => line.includes(`could not expose the receiver with smee: could not reach http://127.0.0.1:${port}`)),
        'the failure is logged',
      );
      await vscode.commands.executeCommand('notifications.showList');
      const messages = `[...document.querySelectorAll('.notifications-center .notification-list-item-message')].map((e) => e.textContent ?? '')`;
      const shown = await readWorkbench<string[]>(messages, `${messages}.some((text) => text.includes('create a smee channel'))`);
      const failure = shown.find((text) => text.includes('create a smee channel'))!;
      assert.match(failure, new RegExp(`could not reach http://127\\.0\\.0\\.1:${port} to create a smee channel`));
      assert.doesNotMatch(failure, /--\w/, `a VS Code user is not told about command-line flags: ${failure}`);
      await vscode.commands.executeCommand('notifications.clearAll');
      // The center would take the Escape meant for the prompt below.
      await vscode.commands.executeCommand('notifications.hideList');
      assert.equal(await started, undefined);
      // smee did not work: the next Expose Receiver asks again instead of trying it once more.
      const again = vscode.commands.executeCommand<string | undefined>('hookbench.expose.start');
      await userDoes({ waitFor: 'Expose Receiver: where should the public URL come from?', press: ['Escape'] });
      assert.equal(await again, undefined);
    } finally {
      await settings.update('smeeServer', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
