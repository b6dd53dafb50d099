// The explorer at volume in the real VS Code: hundreds of entities arrive through the live feed
// with no admin request per webhook, the Agents view pages them ("Show 100 more"), and an expanded
// instance's state follows its agent's broadcast.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import { AdminRequests } from '../unit/helpers/adminRequests';
import { adminClient, api, withSecret } from './helpers';
import { clickRow, rowsUnder, untilRows, type TreeRow } from './treeViews';

const SECRET = 'volume-secret';
const ENTITIES = 300;
const NAMESPACE = ['webhook-agent'];
const MORE = 'Show 100 more';

function push(delivery: string) {
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'Acme/Volume' }, pusher: { name: 'zoe' }, commits: [] });
  const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
  return { body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery } };
}

/** The instance rows of a page of the Agents view, without its "Show 100 more" row. */
const instanceRows = (rows: TreeRow[]) => rows.filter((row) => row.label !== MORE);
/** The instances under the namespace, none when the view has no namespace (no instance at all). */
const namespaceRows = async () => ((await rowsUnder('Agents')).some((root) => root.label === NAMESPACE[0]) ? rowsUnder('Agents', NAMESPACE) : []);
/** How many instances the "Show 100 more" row says are not shown (0 without it). */
const notShown = (rows: TreeRow[]) => Number(/^(\d+) not shown$/.exec(rows.find((row) => row.label === MORE)?.description ?? '')?.[1] ?? 0);

describe('explorer at volume', () => {
  // What the extension asks the admin API, counted as the requests leave this extension host.
  let sent: AdminRequests | undefined;
  afterEach(() => sent?.dispose());
  // The suites after this one find the views as a user left them: its hundreds of entities gone.
  after(async function () {
    this.timeout(120_000);
    const hookbench = await api();
    const client = await adminClient(hookbench);
    const volume = (await client.instances()).filter((i) => i.name.startsWith('vol-'));
    for (let start = 0; start < volume.length; start += 20)
      await Promise.all(volume.slice(start, start + 20).map((i) => client.deleteInstance(i.namespace, i.name)));
    for (const deadline = Date.now() + 60_000; ;) {
      // The view is drawn again as the entities go: a look may find it between two drawings.
      const rows = await namespaceRows().catch(() => undefined);
      if (rows && !rows.some((row) => row.label === MORE || row.label.startsWith('vol-'))) break;
      if (Date.now() > deadline) throw new Error(`the volume entities are still shown: ${rows?.length ?? '?'} rows`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });

  it('shows hundreds of entities live without pulls, pages them, and follows an expanded instance', async function () {
    this.timeout(240_000);
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
    await vscode.commands.executeCommand('workbench.view.extension.hookbench');
    const requests = (sent = new AdminRequests(url));
    await namespaceRows();
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
    const page = await untilRows('Agents', NAMESPACE, (rows) => notShown(rows) >= ENTITIES - 100, 60_000);
    assert.equal(instanceRows(page).length, 100, 'a page of 100');
    const count = requests.count - before;
    assert.ok(count <= 2, `the view followed ${ENTITIES} webhooks with ${count} admin requests (at most one page read): ${requests.recent(count).join(', ')}`);

    // The user clicks "Show 100 more".
    await clickRow('Agents', [...NAMESPACE, MORE]);
    const twoPages = await untilRows('Agents', NAMESPACE, (rows) => instanceRows(rows).length === 200, 60_000);
    assert.equal(instanceRows(twoPages).length, 200);

    // Expanded in the view: its state now comes from its agent's broadcast (the explorer holds a
    // connection to it), and follows a webhook.
    await rowsUnder('Agents', [...NAMESPACE, 'vol-007']);
    const client = await adminClient(hookbench);
    const connected = async () => ((await client.instances()).find((i) => i.name === 'vol-007')?.connections ?? 0) > 0;
    for (const deadline = Date.now() + 15_000; !(await connected()) && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(await connected(), 'the explorer reads vol-007 over its agent’s WebSocket');
    const quiet = requests.count;
    const again = push('vol-007-again');
    assert.equal((await fetch(`${url}/webhooks/github/vol-007`, { method: 'POST', body: again.body, headers: again.headers })).status, 200);
    const total = (rows: TreeRow[]) => rows.find((row) => row.label === 'total')?.description;
    assert.equal(total(await untilRows('Agents', [...NAMESPACE, 'vol-007', 'State', 'stats'], (rows) => total(rows) === '2')), '2');
    assert.equal(requests.count, quiet, 'no admin request for the webhook');
    await vscode.commands.executeCommand('workbench.actions.treeView.hookbench.agents.collapseAll');
  });
});
