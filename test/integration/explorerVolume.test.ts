// The explorer at volume in the real VS Code: hundreds of entities arrive through the live feed
// with no admin request per webhook, the Agents view pages them ("Show 100 more"), and an expanded
// instance's state follows its agent's broadcast.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import type { AgentNode } from '../../src/vscode/views/agentsTree';
import { SHOW_MORE_COMMAND } from '../../src/vscode/views/listTree';
import { AdminRequests } from '../unit/helpers/adminRequests';
import { api, instancesNow, untilTree, withSecret } from './helpers';

const SECRET = 'volume-secret';
const ENTITIES = 300;

function push(delivery: string) {
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'Acme/Volume' }, pusher: { name: 'zoe' }, commits: [] });
  const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
  return { body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery } };
}

const instanceNodes = (nodes: AgentNode[]) => nodes.filter((n): n is Extract<AgentNode, { kind: 'instance' }> => n.kind === 'instance');

describe('explorer at volume', () => {
  // What the extension asks the admin API, counted as the requests leave this extension host.
  let sent: AdminRequests | undefined;
  afterEach(() => sent?.dispose());
  // The suites after this one find the views as a user left them: its hundreds of entities gone.
  after(async function () {
    this.timeout(60_000);
    const hookbench = await api();
    const client = hookbench.explorer.client;
    const volume = instanceNodes(await instancesNow(hookbench)).filter((n) => n.name.startsWith('vol-'));
    if (!client) return;
    const namespace = volume[0]?.namespace ?? 'WEBHOOK_AGENT';
    const names = Array.from({ length: ENTITIES }, (_, i) => `vol-${String(i).padStart(3, '0')}`);
    for (let start = 0; start < names.length; start += 20) await Promise.all(names.slice(start, start + 20).map((name) => client.deleteInstance(namespace, name)));
    await untilTree(hookbench, () => instancesNow(hookbench), (nodes) => !nodes.some((n) => n.kind === 'more' || (n.kind === 'instance' && n.name.startsWith('vol-'))));
  });

  it('shows hundreds of entities live without pulls, pages them, and follows an expanded instance', async function () {
    this.timeout(180_000);
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
    await vscode.commands.executeCommand('workbench.view.extension.hookbench');
    await hookbench.explorer.model.ready();
    const client = hookbench.explorer.client!;
    const requests = (sent = new AdminRequests(client.baseUrl));
    await instancesNow(hookbench);
    // The views opened just now read their first pages (Agents, Deliveries, Bindings): wait until
    // they are done, so that what is counted below is what the webhooks caused.
    for (let settled = 0, last = -1, tries = 0; settled < 5 && tries < 100; tries++) {
      settled = requests.count === last ? settled + 1 : 0;
      last = requests.count;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const before = requests.count;

    const names = Array.from({ length: ENTITIES }, (_, i) => `vol-${String(i).padStart(3, '0')}`);
    for (let start = 0; start < names.length; start += 20) {
      await Promise.all(
        names.slice(start, start + 20).map(async (name) => {
          const { body, headers } = push(`vol-${name}`);
          assert.equal((await fetch(`${url}/webhooks/github/${name}`, { method: 'POST', body, headers })).status, 200);
        }),
      );
    }
    const page = await untilTree(hookbench, () => instancesNow(hookbench), (nodes) => nodes.some((n) => n.kind === 'more' && (n.remaining ?? 0) >= ENTITIES - 100), 60_000);
    assert.equal(instanceNodes(page).length, 100, 'a page of 100');
    const count = requests.count - before;
    assert.ok(count <= 2, `the view followed ${ENTITIES} webhooks with ${count} admin requests (at most one page read): ${requests.recent(count).join(', ')}`);

    const more = page.find((n) => n.kind === 'more')!;
    await hookbench.views['hookbench.agents'].reveal(more, { focus: true });
    await vscode.commands.executeCommand(SHOW_MORE_COMMAND, more);
    const twoPages = await untilTree(hookbench, () => instancesNow(hookbench), (nodes) => instanceNodes(nodes).length === 200);
    assert.equal(instanceNodes(twoPages).length, 200);

    // Expanded in the view: its state now comes from its agent's broadcast, and follows a webhook.
    const instance = instanceNodes(twoPages).find((n) => n.name === 'vol-007')!;
    await hookbench.views['hookbench.agents'].reveal(instance, { expand: true });
    await untilTree(hookbench, async () => hookbench.explorer.model.readPath(instance.namespace, instance.name), (read) => read.channel);
    const quiet = requests.count;
    const again = push('vol-007-again');
    assert.equal((await fetch(`${url}/webhooks/github/vol-007`, { method: 'POST', body: again.body, headers: again.headers })).status, 200);
    const total = async () => {
      const [state] = await hookbench.trees.agents.getChildren(instance);
      return state?.kind === 'state' ? (state.state as { stats?: { total: number } } | null)?.stats?.total : undefined;
    };
    assert.equal(await untilTree(hookbench, total, (n) => n === 2), 2);
    assert.equal(requests.count, quiet, 'no admin request for the webhook');
    await vscode.commands.executeCommand('workbench.actions.treeView.hookbench.agents.collapseAll');
  });
});
