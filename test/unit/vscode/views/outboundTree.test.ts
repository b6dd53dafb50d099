// The Outbound view against a real serve on loopback whose sink has a small budget: under the
// captures it keeps, it says how many older ones the sink dropped, and the live feed keeps that current.
import '../../helpers/vscodeShim';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../../../src/core/log';
import { AdminClient } from '../../../../src/vscode/client/adminClient';
import { ExplorerModel, type ExplorerFeed } from '../../../../src/vscode/views/explorerModel';
import { OutboundTree } from '../../../../src/vscode/views/outboundTree';
import { serveDefaultWorker, type Served } from '../../helpers/serveWorker';

const TOKEN = 'outbound-view-token';

describe('the Outbound view', () => {
  let served: Served;
  let client: AdminClient;
  let model: ExplorerModel;
  let outbound: OutboundTree;
  // Two captures of 40 KiB fit the 100 KiB budget, a third does not.
  const post = async (n: number) =>
    assert.equal((await fetch(`${served.url}/__hookbench/sink/chat`, { method: 'POST', body: `${n}`.repeat(40 * 1024) })).status, 200);

  before(async () => {
    served = await serveDefaultWorker({ adminToken: TOKEN, sinkLimits: { maxCaptureBytes: 64 * 1024, maxTotalBytes: 100 * 1024 } });
    for (let n = 1; n <= 5; n++) await post(n);
    client = new AdminClient(served.url, TOKEN, nullLogger);
    model = new ExplorerModel({ paceMs: 0 });
    const feed: ExplorerFeed = { model, client, onDidChange: model.onDidChange, schedule: () => model.redraw() };
    outbound = new OutboundTree(feed);
    model.connect(client);
    await model.reload();
  });
  after(async () => {
    model.dispose();
    client.dispose();
    await served.stop();
  });

  it('says under the captures it shows how many older ones the sink dropped to stay within its budget', async () => {
    const children = await outbound.getChildren();
    assert.equal(children.length, 3);
    const labels = children.map((c) => String(outbound.getTreeItem(c).label));
    assert.match(labels[0]!, /^chat · 5555/);
    assert.match(labels[1]!, /^chat · 4444/);
    assert.equal(labels[2], "3 older captures dropped to stay within the sink's budget");
  });

  it('counts the captures dropped while it shows, from the live feed', async () => {
    const arrived = new Promise<void>((resolve) => {
      const listening = model.onDidChange(() => {
        if (!model.captures[0]?.body.startsWith('6')) return;
        listening.dispose();
        resolve();
      });
    });
    const hello = new Promise<void>((resolve) => {
      const listening = client.onLive((message) => {
        if (message.type !== 'hello') return;
        listening.dispose();
        resolve();
      });
    });
    client.onLive((message) => model.apply(message));
    client.connectLive();
    await hello;
    await post(6);
    await arrived;
    const children = await outbound.getChildren();
    assert.equal(String(outbound.getTreeItem(children.at(-1)!).label), "4 older captures dropped to stay within the sink's budget");
    assert.match(String(outbound.getTreeItem(children[0]!).label), /^chat · 6666/);
  });
});
