// Long lists in the explorer's trees, against a real serve on loopback: 100 items and a
// "Show 100 more" node; a page of a namespace is described in one admin request.
import '../../helpers/vscodeShim';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliverySummary } from '../../../../src/core/contract/deliveries';
import { Emitter } from '../../../../src/core/events';
import { nullLogger } from '../../../../src/core/log';
import { AdminClient } from '../../../../src/vscode/client/adminClient';
import { localReader } from '../../../../src/vscode/client/instanceReader';
import { AgentsTree, type AgentNode } from '../../../../src/vscode/views/agentsTree';
import { DeliveriesTree } from '../../../../src/vscode/views/deliveriesTree';
import { ExplorerModel, type ExplorerFeed } from '../../../../src/vscode/views/explorerModel';
import { isMore, type MoreItem } from '../../../../src/vscode/views/listTree';
import { AdminRequests } from '../../helpers/adminRequests';
import { serveDefaultWorker, type Served } from '../../helpers/serveWorker';
import { githubPush, SECRETS } from '../../workers/payloads';

const TOKEN = 'explorer-paging-token';
const INSTANCES = 130;
const EVENTS = 130;

describe('the explorer pages long lists', () => {
  let served: Served;
  let client: AdminClient;
  let requests: AdminRequests;
  let model: ExplorerModel;
  let agents: AgentsTree;
  let deliveries: DeliveriesTree;

  before(async () => {
    served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN, settings: { retentionCount: 0 } });
    const send = async (entity: string, id: string) => {
      const { body, headers } = githubPush(`acme/${entity}`, id);
      assert.equal((await fetch(`${served.url}/webhooks/github/${entity}`, { method: 'POST', body, headers })).status, 200);
    };
    for (let i = 0; i < INSTANCES; i++) await send(`page-${String(i).padStart(3, '0')}`, `p-${i}`);
    for (let i = 0; i < EVENTS - 1; i++) await send('page-000', `e-${i}`);
    // Connected after the traffic: the lists are read once, as after a reload of VS Code.
    client = new AdminClient(served.url, TOKEN, nullLogger);
    requests = new AdminRequests(served.url);
    model = new ExplorerModel({ paceMs: 0, openChannel: (instance) => localReader(client, instance) });
    const feed: ExplorerFeed = { model, client, onDidChange: model.onDidChange, schedule: () => model.redraw() };
    const noWorkers = new Emitter<void>();
    agents = new AgentsTree(feed, { list: () => [], connection: () => undefined, onDidChange: noWorkers.event });
    deliveries = new DeliveriesTree(feed);
    model.connect(client);
    await model.reload();
  });
  after(async () => {
    model.dispose();
    client.dispose();
    requests.dispose();
    await served.stop();
  });

  it('shows 100 instances and "Show 100 more", describing the page in one request', async () => {
    const [namespace] = await agents.getChildren();
    assert.equal(namespace?.kind, 'namespace');
    const before = requests.count;
    const page = await agents.getChildren(namespace);
    assert.equal(requests.count - before, 1, 'one batch read for the page, not one per instance');
    assert.equal(page.filter((n) => n.kind === 'instance').length, 100);
    const more = page.at(-1)!;
    assert.deepEqual([more.kind, more.kind === 'more' && more.remaining], ['more', INSTANCES - 100]);
    assert.equal(agents.getTreeItem(more).label, 'Show 100 more');
    assert.match(String(agents.getTreeItem(page[1]!).description), /^1 event · push/);

    agents.showMore(more);
    const all = await agents.getChildren(namespace);
    assert.equal(all.filter((n) => n.kind === 'instance').length, INSTANCES);
    assert.equal(
      all.some((n) => n.kind === 'more'),
      false,
      'nothing left to show',
    );
    assert.equal(requests.count - before, 2, 'the next page in one more request');
    // Shown again (a redraw): known pages are not read again.
    await agents.getChildren(namespace);
    assert.equal(requests.count - before, 2);
  });

  it('shows an instance’s newest 100 events, then 100 more, through its getEvents callable', async () => {
    const [namespace] = await agents.getChildren();
    const instance = (await agents.getChildren(namespace)).find(
      (n): n is Extract<AgentNode, { kind: 'instance' }> => n.kind === 'instance' && n.name === 'page-000',
    )!;
    const [, events] = await agents.getChildren(instance);
    assert.equal(events?.kind, 'events');
    const first = await agents.getChildren(events);
    assert.equal(first.filter((n) => n.kind === 'event').length, 100);
    const more = first.at(-1)!;
    assert.deepEqual([more.kind, more.kind === 'more' && more.remaining], ['more', EVENTS - 100]);
    agents.showMore(more);
    const all = await agents.getChildren(events);
    assert.equal(all.filter((n) => n.kind === 'event').length, EVENTS);
    assert.equal(
      all.some((n) => n.kind === 'more'),
      false,
    );
    assert.deepEqual(model.readPath('WEBHOOK_AGENT', 'page-000'), { channel: true, events: 'callable' });
    agents.collapsed(instance);
    assert.equal(model.channelCount, 0, 'collapsing closed its channel');
  });

  it('shows the newest 100 deliveries, then 100 more read in one request', async () => {
    const first = await deliveries.getChildren();
    assert.equal(first.filter((d) => !isMore(d)).length, 100);
    assert.equal(isMore(first.at(-1)), true);
    assert.equal(deliveries.getTreeItem(first.at(-1) as MoreItem).label, 'Show 100 more');
    const before = requests.count;
    await deliveries.showMore();
    // Deliveries and outbound captures are kept to the same limit: one request each.
    assert.equal(requests.count - before, 2);
    const second = (await deliveries.getChildren()).filter((d): d is DeliverySummary => !isMore(d));
    assert.equal(second.length, 200);
    assert.ok(
      second.every((d, i) => i === 0 || d.time <= second[i - 1]!.time),
      'newest first',
    );
  });
});
