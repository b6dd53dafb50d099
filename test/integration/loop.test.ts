// The daily loop as a user drives it, in the real workbench: the command palette's Send Test
// Webhook, a provider, an event and an entity typed into the prompts, the draft's Send button
// clicked, the event in its agent, a replay as a new delivery, the second event.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildDelivery, findTemplate } from '../../src/core/payloads';
import { isFree } from '../../src/core/nextFreePort';
import { schemeFor } from '../../src/core/signing';
import { adminClient, api, deliveryIds, newDeliveries, nextRestart, withSecret } from './helpers';
import { readWorkbench, userDoes } from './reporter';
import { collapseAgents, rowMenu, rowsUnder, shownUnder, untilRows } from './treeViews';

/** The Events row of acme-loop in the Agents view. */
const LOOP_EVENTS = ['webhook-agent', 'acme-loop', 'Events'];
/** The instances the Agents view shows, by name. */
const instanceNames = async () => (await rowsUnder('Agents', ['webhook-agent'])).map((row) => row.label);

describe('The daily loop, as a user', () => {
  after(collapseAgents);

  it('palette → provider → event → entity → draft → Send → the event in its agent → replay as new → a second event', async () => {
    const hookbench = await api();
    // A clean window, as after opening a folder: no walkthrough or editor to take the focus from the prompts.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', 'loop-secret');

    const opened = vscode.commands.executeCommand<vscode.Uri>('hookbench.webhook.send');
    await userDoes({ waitFor: 'Send Test Webhook (1/3)', type: 'github', press: ['Enter'] });
    await userDoes({ waitFor: 'Send Test Webhook (2/3)', type: 'push', press: ['Enter'] });
    // The entity prompt shows what an empty answer keeps: the template's own repository.
    const input = `document.querySelector('.quick-input-widget .quick-input-box input')`;
    assert.equal(await readWorkbench<string>(`${input}.placeholder`, `${input}?.placeholder === 'Codertocat/Hello-World'`), 'Codertocat/Hello-World');
    await userDoes({ waitFor: 'Send Test Webhook (3/3)', type: 'Acme/Loop', press: ['Enter'] });
    const draft = await opened;

    const editor = vscode.window.activeTextEditor!;
    assert.equal(editor.document.uri.toString(), draft.toString(), 'the draft is the active editor');
    assert.equal(path.posix.basename(draft.path), 'github push · Acme∕Loop.json', 'the tab names provider, event and entity');
    assert.equal(editor.document.languageId, 'json');

    await userDoes({ click: '.editor-actions [aria-label^="Send Webhook"]' });
    const first = await untilRows('Agents', LOOP_EVENTS, (events) => events.length === 1);

    // The user replays it from the event's context menu; the receiver's log says how it went.
    const client = await adminClient(hookbench);
    const known = await deliveryIds(client);
    await rowMenu('Agents', [...LOOP_EVENTS, first[0]!.label], 'Replay as New Delivery (new id, re-signed now)');
    const [replayed] = await newDeliveries(client, known);
    assert.deepEqual([replayed!.status, replayed!.duplicate ?? false], [200, false], 'a new delivery is processed');
    const both = await untilRows('Agents', LOOP_EVENTS, (events) => events.length === 2);
    assert.equal(both.length, 2);
    // Only one agent for the repository: the draft's path (Acme%2FLoop) and the payload both say acme-loop.
    const loops = (await instanceNames()).filter((name) => /loop/i.test(name));
    assert.deepEqual(loops, ['acme-loop']);
  });

  it('says "duplicate — not processed again" for a replay as received, in the answer and in Deliveries', async () => {
    const hookbench = await api();
    const [event] = await shownUnder('Agents', LOOP_EVENTS);
    assert.ok(event, 'the loop test left an event');
    const client = await adminClient(hookbench);
    const known = await deliveryIds(client);
    await rowMenu('Agents', [...LOOP_EVENTS, event.label], 'Replay as Received (a duplicate, to test idempotency)');
    const [again] = await newDeliveries(client, known);
    assert.deepEqual([again!.status, again!.duplicate], [200, true]);
    const items = await untilRows('Deliveries', [], (list) => list.some((d) => /duplicate/.test(d.description)));
    const duplicate = items.find((d) => /duplicate/.test(d.description))!;
    // The row says it first, before where it came from: the replay was taken as a duplicate.
    assert.match(duplicate.description, /^200 duplicate · replay · github/);
    assert.equal((await rowsUnder('Agents', LOOP_EVENTS)).length, 2, 'nothing was stored again');
  });

  it('sends again from the same draft after an edit, as a new delivery', async () => {
    const hookbench = await api();
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'hookbench-draft')!;
    assert.ok(editor, 'the draft is still open');
    await editor.edit((edit) =>
      edit.replace(
        new vscode.Range(0, 0, editor.document.lineCount, 0),
        JSON.stringify({ ref: 'refs/heads/edited', repository: { full_name: 'Acme/Loop' }, pusher: { name: 'ana' }, commits: [] }, null, 2),
      ),
    );
    const result = (await vscode.commands.executeCommand('hookbench.draft.send', editor.document.uri)) as { status: number; duplicate: boolean };
    assert.deepEqual(
      [result.status, result.duplicate],
      [200, false],
      hookbench
        .recentLog()
        .filter((l) => /security|POST|restart|secret|listening/i.test(l))
        .slice(-25)
        .join('\n'),
    );
    await untilRows('Agents', LOOP_EVENTS, (events) => events.length === 3);
    assert.equal(editor.document.isDirty, false, 'the draft saved itself: no "save changes?" prompt');
  });

  it('set secret, then send: choosing Set Webhook Secret from the warning restarts the receiver, and the pending send completes', async () => {
    const hookbench = await api();
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('hookbench.secret.clear', 'STRIPE_WEBHOOK_SECRET');
    const draft = (await vscode.commands.executeCommand('hookbench.webhook.send', {
      provider: 'stripe',
      event: 'invoice.paid',
      entity: 'cus_LoopSecret',
    })) as vscode.Uri;
    const sending = vscode.commands.executeCommand('hookbench.draft.send', draft) as Thenable<{ status: number; body: string } | undefined>;
    // The user answers the warning from the notifications list (the bell): a headless window never
    // has focus, and VS Code holds back toasts then.
    await vscode.commands.executeCommand('notifications.showList');
    await userDoes({ click: '.notifications-center ::-p-text(Set Webhook Secret)' }).catch((error: Error) => {
      throw new Error(`${error.message}\n${hookbench.recentLog().slice(-8).join('\n')}`);
    });
    await userDoes({ waitFor: 'Set STRIPE_WEBHOOK_SECRET', type: 'whsec_loop_secret', press: ['Enter'] });
    const result = await sending;
    assert.deepEqual([result?.status, result?.body], [200, 'OK'], 'signed with the new secret, sent to the restarted receiver');
    const names = (await untilRows('Agents', ['webhook-agent'], (rows) => rows.some((row) => row.label === 'cus_LoopSecret'))).map((row) => row.label);
    assert.ok(!names.includes('cus_loopsecret'), 'Stripe ids keep their case');
  });

  it('a port in use: Use Another Port takes the next free one after it, saves it to the workspace, and the receiver listens there', async () => {
    const hookbench = await api();
    await hookbench.receiver.ready();
    // A taken port whose next one is free (the kernel's choice, checked).
    const holder = net.createServer();
    let taken: number;
    for (;;) {
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      taken = (holder.address() as net.AddressInfo).port;
      if (await isFree('127.0.0.1', taken + 1)) break;
      await new Promise((resolve) => holder.close(resolve));
    }
    const settings = () => vscode.workspace.getConfiguration('hookbench');
    const before = settings().inspect<number>('receiver.port')?.workspaceValue;
    try {
      await vscode.commands.executeCommand('notifications.clearAll');
      let failed: () => void;
      const failing = new Promise<void>((resolve) => (failed = resolve));
      const running = new Promise<string>((resolve) => {
        let wasFailed = false;
        const sub = hookbench.receiver.onDidChangeState((state) => {
          if (state.kind === 'failed') {
            wasFailed = true;
            failed();
          }
          if (state.kind !== 'running' || !wasFailed) return;
          sub.dispose();
          resolve(state.url);
        });
      });
      // The setting restarts the receiver on the taken port: it fails, and offers the ways out.
      await settings().update('receiver.port', taken, vscode.ConfigurationTarget.Workspace);
      await failing;
      await vscode.commands.executeCommand('notifications.showList');
      await userDoes({ click: '.notifications-center ::-p-text(Use Another Port)' });
      const url = await running;
      const now = settings().inspect<number>('receiver.port')?.workspaceValue;
      assert.equal(now, taken + 1, 'the workspace setting is the next port, free');
      assert.equal(new URL(url).port, String(now));
      await vscode.commands.executeCommand('notifications.showList');
      await readWorkbench(
        'true',
        `document.querySelector('.notifications-center')?.textContent.includes('the receiver now uses port ${taken + 1}, the next free one')`,
      );
    } finally {
      holder.close();
      // The notifications center shown above would take the next Escape meant for a prompt.
      await vscode.commands.executeCommand('notifications.hideList');
      // The setting restarts a running receiver once VS Code reports the change, which can come
      // after update() resolves: the next test must not be handed the URL that is going away.
      const back = hookbench.receiver.state.kind === 'running' ? nextRestart(hookbench) : undefined;
      await settings().update('receiver.port', before, vscode.ConfigurationTarget.Workspace);
      await back;
    }
  });

  it('the provider pick says which secrets are set, and sets a missing one on the spot', async function () {
    const hookbench = await api();
    await vscode.commands.executeCommand('hookbench.secret.clear', 'SHOPIFY_WEBHOOK_SECRET');
    const picked = vscode.commands.executeCommand('hookbench.webhook.send');
    await userDoes({ waitFor: 'Send Test Webhook (1/3)', type: 'shopify' });
    await userDoes({ waitFor: 'no SHOPIFY_WEBHOOK_SECRET', click: '.quick-input-list .monaco-list-row[aria-label*="shopify"] .codicon-key' });
    await userDoes({ waitFor: 'Set SHOPIFY_WEBHOOK_SECRET', type: 'shpss_on_the_spot', press: ['Enter'] });
    await userDoes({ waitFor: 'SHOPIFY_WEBHOOK_SECRET set', press: ['Escape'] });
    assert.equal(await picked, undefined, 'Escape still cancels the send');
    // The secret stored is the one typed: the receiver, given it, verifies a delivery signed with it.
    const delivery = buildDelivery(findTemplate('shopify', 'orders/create')!, {});
    const signed = schemeFor('shopify').sign({ secret: 'shpss_on_the_spot', body: delivery.body });
    const response = await fetch(`${await hookbench.receiver.ready()}/webhooks/shopify`, {
      method: 'POST',
      headers: { ...delivery.headers, ...signed.headers },
      body: delivery.body,
    });
    assert.equal(response.status, 200, await response.text());
  });
});
