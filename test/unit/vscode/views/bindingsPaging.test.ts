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
import { BindingsTree, LIVE_DEBOUNCE_MS } from '../../../../src/vscode/views/bindingsTree';
import { ManualTimers } from '../../helpers/manualTimers';
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
  const timers = new ManualTimers();

  before(async () => {
    served = await serveFixture('bindings', { adminToken: TOKEN });
    for (let i = 0; i < COUNT; i++) {
      const key = `k-${String(i).padStart(3, '0')}`;
      assert.equal((await fetch(`${served.url}/kv?key=${key}`, { method: 'PUT', body: 'v' })).status, 200);
      assert.equal((await fetch(`${served.url}/r2?key=${key}`, { method: 'PUT', body: 'v' })).status, 200);
    }
    client = new AdminClient(served.url, TOKEN, nullLogger);
    requests = new AdminRequests(served.url);
    const connected = new Promise<void>((resolve) => {
      const hello = client.onLive((message) => {
        if (message.type !== 'hello') return;
        hello.dispose();
        resolve();
      });
    });
    client.connectLive();
    await connected;
    tree = new BindingsTree({ client, onDidChange: changes.event, onDidReload: reloads.event, onLive: client.onLive }, () => undefined, timers);
  });
  after(async () => {
    client.dispose();
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

  it('reads an opened binding again when the worker writes to it, once for a burst; one never opened is not read', { timeout: 20_000 }, async () => {
    reloads.fire();
    const kv = await binding('kv');
    await tree.getChildren(kv);
    const r2 = await binding('r2');
    const redrawn: unknown[] = [];
    const sub = tree.onDidChangeTreeData((changed) => redrawn.push(changed));
    const before = requests.count;
    let seen = 0;
    let allSeen: () => void = () => undefined;
    const counting = client.onLive((message) => {
      if (message.type === 'binding' && message.kind === 'kv' && ++seen === 3) allSeen();
    });
    const changesSeen = new Promise<void>((resolve) => (allSeen = resolve));
    // A burst of writes: three keys put, one after the other, as a handler does.
    for (const key of ['0-live-1', '0-live-2', '0-live-3'])
      assert.equal((await fetch(`${served.url}/kv?key=${key}`, { method: 'PUT', body: 'v' })).status, 200);
    // The feed's three messages arrive (one per write), then the debounce passes.
    await changesSeen;
    counting.dispose();
    assert.deepEqual(redrawn, [], 'nothing is redrawn before the burst is over');
    await timers.advance(LIVE_DEBOUNCE_MS);
    sub.dispose();
    assert.deepEqual(redrawn, [kv], 'the opened KV binding is redrawn once; R2, never opened since Refresh, is not');
    assert.equal(requests.count, before, 'nothing is read until the view asks for the redrawn binding');
    assert.deepEqual((await labels(kv)).slice(0, 4), ['0-live-1', '0-live-2', '0-live-3', 'a-new'], 'the page read again has the new keys');
    assert.equal(requests.count, before + 1, 'read once');
    assert.equal(r2.kind, 'binding');
  });
});
