import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import { listed } from '../../src/vscode/views/listTree';
import { adminClient, api, instancesNow, nextRestart, startReceiver, untilTree, withSecret } from './helpers';
import { reportFigure } from './reporter';

function signedPush(secret: string, delivery: string) {
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'Acme/Integration' }, pusher: { name: 'zoe' }, commits: [] });
  const { headers } = schemeFor('github').sign({ secret, body: Buffer.from(body) });
  return { body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery } };
}

describe('Receiver', () => {
  it('starts on activation, on loopback, with the built-in worker', async () => {
    await api();
    const url = await startReceiver();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/webhooks/github/acme`, { method: 'POST', body: '{}' });
    assert.equal(response.status, 401);
    assert.equal(await response.text(), 'Invalid signature');
  });

  it('passes secrets set through the command to the receiver, and never into settings', async () => {
    const hookbench = await api();
    await startReceiver();
    const restarted = nextRestart(hookbench);
    await vscode.commands.executeCommand('hookbench.secret.set', 'GITHUB_WEBHOOK_SECRET', 'integration-secret');
    const url = await restarted;
    const push = signedPush('integration-secret', 'int-1');
    const response = await fetch(`${url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers });
    assert.equal(response.status, 200);
    assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('hookbench')).includes('integration-secret'));
    // A rejected delivery makes the receiver log a security line: no secret in it, nor anywhere in the log.
    const forged = signedPush('forged-secret', 'int-forged');
    assert.equal((await fetch(`${url}/webhooks/github`, { method: 'POST', body: forged.body, headers: forged.headers })).status, 401);
    const log = hookbench.recentLog();
    assert.ok(log.some((line) => line.includes('[security]')), 'the rejection was logged');
    assert.ok(!log.some((line) => line.includes('integration-secret') || line.includes(hookbench.receiver.adminToken)));
    const instances = (await (await fetch(`${url}/__hookbench/instances`, { headers: { authorization: `Bearer ${hookbench.receiver.adminToken}` } })).json()) as { instances: { name: string }[] };
    assert.ok(instances.instances.some((i) => i.name === 'acme-integration'));
  });

  it('keeps every event across a stop and a start', async () => {
    const hookbench = await api();
    let url = await startReceiver();
    const push = signedPush('integration-secret', 'int-2');
    assert.equal((await fetch(`${url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers })).status, 200);
    await vscode.commands.executeCommand('hookbench.receiver.stop');
    assert.equal(hookbench.receiver.state.kind, 'stopped');
    url = await startReceiver();
    const details = (await (await fetch(`${url}/__hookbench/instances/webhook-agent/acme-integration`, { headers: { authorization: `Bearer ${hookbench.receiver.adminToken}` } })).json()) as { tables: { name: string; rows: number }[] };
    assert.equal(details.tables.find((t) => t.name === 'events')?.rows, 2);
  });

  it('refuses the admin API without the session token', async () => {
    await api();
    const url = await startReceiver();
    assert.equal((await fetch(`${url}/__hookbench/instances`)).status, 401);
  });
});

describe('Explorer', () => {
  it('shows a signed POST in the Agents tree with its state and events, live', async () => {
    const hookbench = await api();
    await startReceiver();
    // A new secret restarts the receiver (on a new port: the tests ask for port 0).
    const restarted = nextRestart(hookbench);
    await vscode.commands.executeCommand('hookbench.secret.set', 'GITHUB_WEBHOOK_SECRET', 'explorer-secret');
    const url = await restarted;
    const push = signedPush('explorer-secret', 'tree-1');
    const response = await fetch(`${url}/webhooks/github/tree-entity`, { method: 'POST', body: push.body, headers: push.headers });
    assert.equal(response.status, 200);
    const tree = hookbench.trees.agents;
    const instances = await untilTree(hookbench, () => instancesNow(hookbench), (list) => list.some((i) => i.kind === 'instance' && i.name === 'tree-entity'));
    const instance = instances.find((i) => i.kind === 'instance' && i.name === 'tree-entity')!;
    const item = tree.getTreeItem(instance);
    assert.match(String(item.description), /1 event · push · \d+ s ago/);
    const [state, events] = await tree.getChildren(instance);
    const stateValues = await tree.getChildren(state);
    assert.ok(stateValues.some((v) => v.kind === 'value' && v.key === 'lastEventType' && v.value === 'push'));
    const eventNodes = await tree.getChildren(events);
    assert.equal(eventNodes.length, 1);
    assert.match(String(tree.getTreeItem(eventNodes[0]!).label), /^push · /);
    await vscode.commands.executeCommand('hookbench.event.openPayload', eventNodes[0]);
    const doc = vscode.window.activeTextEditor!.document;
    assert.equal(doc.languageId, 'json');
    assert.deepEqual(JSON.parse(doc.getText()), JSON.parse(push.body));
  });

  it('shows payload text in hovers as text: no image, link or code span from a payload is rendered', async () => {
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', 'explorer-secret');
    const hostile = '![x](https://tracker.example/p.png) [run](command:workbench.action.quit) `code';
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/hover' }, pusher: { name: hostile }, commits: [] });
    const { headers } = schemeFor('github').sign({ secret: 'explorer-secret', body: Buffer.from(body) });
    const response = await fetch(`${url}/webhooks/github/hover-entity`, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'hover-1' } });
    assert.equal(response.status, 200);
    const tree = hookbench.trees.agents;
    const instances = await untilTree(hookbench, () => instancesNow(hookbench), (list) => list.some((i) => i.kind === 'instance' && i.name === 'hover-entity'));
    const instance = instances.find((i) => i.kind === 'instance' && i.name === 'hover-entity')!;
    const [, events] = await tree.getChildren(instance);
    const [event] = await tree.getChildren(events);
    const tooltip = tree.getTreeItem(event!).tooltip as vscode.MarkdownString;
    assert.ok(tooltip.value.includes('\\[x\\]'), tooltip.value);
    assert.doesNotMatch(tooltip.value, /\]\(https:|\]\(command:/);
    assert.notEqual(tooltip.isTrusted, true);
    assert.notEqual(tooltip.supportHtml, true);
  });

  it('measures POST → Agents tree update', async () => {
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', 'explorer-secret');
    const samples: number[] = [];
    for (let i = 0; i < 15; i++) {
      const push = signedPush('explorer-secret', `timing-${i}`);
      const updated = new Promise<number>((resolve) => {
        const sub = hookbench.explorer.onDidChange(() => {
          sub.dispose();
          resolve(performance.now());
        });
      });
      const t = performance.now();
      assert.equal((await fetch(`${url}/webhooks/github/timing`, { method: 'POST', body: push.body, headers: push.headers })).status, 200);
      samples.push((await updated) - t);
    }
    samples.sort((a, b) => a - b);
    reportFigure('POST → tree update event (p50; sequential POSTs wait out the 250 ms pace)', `${samples[7]!.toFixed(0)} ms`);
  });

  it('marks a bad signature in Deliveries as 401 with the reason', async () => {
    const hookbench = await api();
    const url = await startReceiver();
    const push = signedPush('not-the-secret', 'tree-bad');
    assert.equal((await fetch(`${url}/webhooks/github/tree-entity`, { method: 'POST', body: push.body, headers: push.headers })).status, 401);
    const tree = hookbench.trees.deliveries;
    // The list follows the live feed: wait for this delivery, not an older 401 already shown.
    const isThis = (x: { status: number; path: string }) => x.status === 401 && x.path === '/webhooks/github/tree-entity';
    const list = await untilTree(hookbench, async () => listed(await tree.getChildren()), (d) => d.some((x) => isThis(x) && x.verification?.startsWith('mismatch')));
    const rejected = list.find(isThis)!;
    const item = tree.getTreeItem(rejected);
    assert.equal(item.label, '401 POST /webhooks/github/tree-entity');
    assert.match(String(item.description), /github · tree-entity · mismatch/);
    await vscode.commands.executeCommand('hookbench.delivery.open', rejected);
    const doc = vscode.window.activeTextEditor!.document;
    assert.match(doc.uri.path, /401 POST webhooks∕github∕tree-entity\.http$/);
    assert.match(doc.getText(), /^POST \/webhooks\/github\/tree-entity\n/);
    assert.match(doc.getText(), /### 401 · [\d.]+ ms · mismatch: X-Hub-Signature-256 does not match/);
  });
});

/** Makes sure the secret is stored (a change restarts the receiver); resolves with the receiver's URL. */
describe('Send and replay', () => {
  it('sends a template signed with the stored secret, and it is stored', async () => {
    const hookbench = await api();
    const base = await withSecret(hookbench, 'STRIPE_WEBHOOK_SECRET', 'whsec_send_test');
    const payload = JSON.stringify({ id: 'evt_sent_1', type: 'invoice.paid', data: { object: { object: 'invoice', customer: 'cus_sent' } } });
    const result = (await vscode.commands.executeCommand('hookbench.webhook.send', { provider: 'stripe', event: 'invoice.paid', entity: 'cus_sent', payload })) as { status: number; body: string };
    assert.deepEqual([result.status, result.body], [200, 'OK']);
    const rows = (await (await fetch(`${base}/__hookbench/instances/webhook-agent/cus_sent/query`, { method: 'POST', headers: { authorization: `Bearer ${hookbench.receiver.adminToken}` }, body: JSON.stringify({ sql: 'SELECT id FROM events' }) })).json()) as { rows: string[][] };
    assert.deepEqual(rows.rows, [['evt_sent_1']]);
  });

  it('replays a delivery re-signed after the tolerance window, while the as-received replay is stale', async () => {
    const hookbench = await api();
    const url = await withSecret(hookbench, 'STRIPE_WEBHOOK_SECRET', 'whsec_send_test');
    // A Stripe delivery signed 10 minutes ago: past the 300 s window.
    const body = JSON.stringify({ id: 'evt_old_1', type: 'invoice.paid', data: { object: { object: 'invoice', customer: 'cus_replay' } } });
    const old = Math.floor(Date.now() / 1000) - 600;
    const { headers } = schemeFor('stripe').sign({ secret: 'whsec_send_test', body: Buffer.from(body), timestamp: old });
    const first = await fetch(`${url}/webhooks/stripe/cus_replay`, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } });
    assert.equal(first.status, 401, 'the old signature is already stale');
    const client = await adminClient(hookbench);
    const delivery = (await client.deliveries(20)).find((d) => d.path === '/webhooks/stripe/cus_replay')!;
    assert.match(delivery.verification ?? '', /^stale/);
    const asReceived = (await vscode.commands.executeCommand('hookbench.delivery.replay', delivery)) as { status: number };
    assert.equal(asReceived.status, 401);
    const resigned = (await vscode.commands.executeCommand('hookbench.delivery.replayResigned', delivery)) as { status: number; body: string };
    assert.deepEqual([resigned.status, resigned.body], [200, 'OK']);
    const curl = (await vscode.commands.executeCommand('hookbench.delivery.copyCurl', delivery)) as string;
    assert.match(curl, /^curl -X 'POST' '.*\/webhooks\/stripe\/cus_replay'/);
    assert.match(curl, /-H 'Stripe-Signature: t=\d+,v1=[0-9a-f]{64}'/i);
    assert.ok(curl.includes(`--data-binary '${body}'`));
  });
});

describe('Attach to Deployed Worker', () => {
  it('shows a worker’s instances through the agents protocol alone', async () => {
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', 'explorer-secret');
    const push = signedPush('explorer-secret', 'attached-1');
    assert.equal((await fetch(`${url}/webhooks/github/attached-entity`, { method: 'POST', body: push.body, headers: push.headers })).status, 200);
    // The local receiver stands in for a deployed worker: only /agents/… is used.
    await vscode.commands.executeCommand('hookbench.worker.attach', { baseUrl: url, agent: 'webhook-agent', names: ['attached-entity'] });
    const tree = hookbench.trees.agents;
    const roots = await tree.getChildren();
    const attached = roots.find((n) => n.kind === 'attached')!;
    assert.ok(attached, 'the attached worker is a root of the Agents view');
    const [remote] = await tree.getChildren(attached);
    const description = await untilTree(hookbench, async () => String(tree.getTreeItem(remote!).description), (d) => d.startsWith('push'));
    assert.match(description, /^push · \d+ s ago · 1 total$/);
    const [, events] = await tree.getChildren(remote);
    const eventNodes = await tree.getChildren(events);
    assert.equal(eventNodes.length, 1);
    assert.ok(eventNodes[0]!.kind === 'event' && typeof eventNodes[0]!.event.payload === 'string');
    await vscode.commands.executeCommand('hookbench.worker.detach', attached);
    assert.ok(!(await tree.getChildren()).some((n) => n.kind === 'attached'));
  });
});

describe('Agents view actions', () => {
  it('replays an event re-signed from the Agents view, and clears an instance’s events', async () => {
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', 'explorer-secret');
    const push = signedPush('explorer-secret', 'action-1');
    assert.equal((await fetch(`${url}/webhooks/github/action-entity`, { method: 'POST', body: push.body, headers: push.headers })).status, 200);
    const tree = hookbench.trees.agents;
    const instances = await untilTree(hookbench, () => instancesNow(hookbench), (list) => list.some((i) => i.kind === 'instance' && i.name === 'action-entity'));
    const instance = instances.find((i) => i.kind === 'instance' && i.name === 'action-entity')!;
    const [, events] = await tree.getChildren(instance);
    const [event] = await tree.getChildren(events);
    const replayed = (await vscode.commands.executeCommand('hookbench.delivery.replayResigned', event)) as { status: number; body: string };
    assert.deepEqual([replayed.status, replayed.body], [200, 'OK'], 'a replay as a new delivery is processed');
    const curl = (await vscode.commands.executeCommand('hookbench.delivery.copyCurl', event)) as string;
    assert.match(curl, /\/webhooks\/github\/action-entity/);
    const payload = (await vscode.commands.executeCommand('hookbench.event.copyPayload', event)) as string;
    assert.equal(payload, push.body);
    assert.equal(await vscode.commands.executeCommand('hookbench.instance.clearEvents', instance, true), 2);
    const cleared = await untilTree(hookbench, async () => {
      const list = await instancesNow(hookbench);
      return list.find((i) => i.kind === 'instance' && i.name === 'action-entity');
    }, (node) => node !== undefined && String(tree.getTreeItem(node).description).startsWith('0 events'));
    assert.ok(cleared);
  });
});
