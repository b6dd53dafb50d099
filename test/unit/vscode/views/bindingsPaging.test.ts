// The Bindings view's tree against the bindings fixture served on loopback: 100 KV keys and R2
// objects at first, then "Show 100 more"; the views' Refresh reads a binding again, and nothing
// else does (no request per webhook).
import '../../helpers/vscodeShim';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../../../src/core/events';
import { nullLogger } from '../../../../src/core/log';
import { AdminClient } from '../../../../src/vscode/client/adminClient';
import type { BindingNode } from '../../../../src/vscode/views/bindingNodes';
import { BindingsTree } from '../../../../src/vscode/views/bindingsTree';
import { AdminRequests } from '../../helpers/adminRequests';
import { serveFixture, type Served } from '../../helpers/serveWorker';

const TOKEN = 'bindings-paging-token';
const COUNT = 130;

describe('the Bindings view pages what a binding holds', () => {
  let served: Served;
  let client: AdminClient;
  let requests: AdminRequests;
  let tree: BindingsTree;
  const reloads = new Emitter<void>();
  const changes = new Emitter<never>();

  before(async () => {
    served = await serveFixture('bindings', { adminToken: TOKEN });
    for (let i = 0; i < COUNT; i++) {
      const key = `k-${String(i).padStart(3, '0')}`;
      assert.equal((await fetch(`${served.url}/kv?key=${key}`, { method: 'PUT', body: 'v' })).status, 200);
      assert.equal((await fetch(`${served.url}/r2?key=${key}`, { method: 'PUT', body: 'v' })).status, 200);
    }
    client = new AdminClient(served.url, TOKEN, nullLogger);
    requests = new AdminRequests(served.url);
    tree = new BindingsTree({ client, onDidChange: changes.event, onDidReload: reloads.event }, () => undefined);
  });
  after(async () => {
    requests.dispose();
    await served.stop();
  });

  const binding = async (kind: string) => (await tree.getChildren()).find((n) => n.kind === 'binding' && n.binding.kind === kind)!;
  const labels = async (node: BindingNode) => (await tree.getChildren(node)).map((n) => (n.kind === 'item' ? n.label : n.kind));

  for (const kind of ['kv', 'r2']) {
    it(`shows ${kind}'s first 100 entries, then the rest after "Show 100 more"`, async () => {
      const node = await binding(kind);
      const first = await tree.getChildren(node);
      assert.equal(first.length, 101);
      assert.deepEqual(first[100], { kind: 'bindingsMore', id: `${node.id}/#more`, bindingId: node.id });
      let redrawn: unknown;
      const sub = tree.onDidChangeTreeData((changed) => (redrawn = changed));
      await tree.showMore(first[100]!);
      sub.dispose();
      assert.equal(redrawn, node, 'the binding node is redrawn');
      const all = await labels(node);
      assert.equal(all.length, COUNT, 'no "Show 100 more" once everything is shown');
      assert.equal(all[COUNT - 1], `k-${COUNT - 1}`);
    });
  }

  it('reads a binding again on Refresh, and not before', async () => {
    const node = await binding('kv');
    const before = requests.count;
    await tree.getChildren(node);
    assert.equal(requests.count, before, 'an expanded binding is not read again on its own');
    await fetch(`${served.url}/kv?key=a-new`, { method: 'PUT', body: 'v' });
    reloads.fire();
    const again = await binding('kv');
    assert.equal((await labels(again))[0], 'a-new');
  });
});
