// The explorer's model: the lists read once per connection, then kept current from the live feed
// alone; each change names the nodes it touched, and changes are paced for VS Code's debounce.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliverySummary } from '../../../../src/core/contract/deliveries';
import type { EventRow, InstanceDetails, InstanceRef, InstanceSummary } from '../../../../src/core/contract/instances';
import type { LiveMessage } from '../../../../src/core/contract/live';
import { ExplorerModel, merge, type ExplorerChange, type ExplorerSource } from '../../../../src/vscode/views/explorerModel';
import { ManualTimers } from '../../helpers/manualTimers';

const summary = (name: string, awake = false): InstanceSummary => ({
  namespace: 'WEBHOOK_AGENT',
  agent: 'webhook-agent',
  className: 'WebhookAgent',
  name,
  awake,
  connections: 0,
});
const row = (id: string, timestamp: string): EventRow => ({ id, type: 'push', action: null, title: id, timestamp });
const delivery = (id: string, time: string): DeliverySummary =>
  ({
    id,
    time,
    method: 'POST',
    path: '/webhooks/github',
    requestHeaders: {},
    requestTruncated: false,
    status: 200,
    responseHeaders: {},
    durationMs: 1,
    provider: 'github',
    entity: 'a',
    verification: 'valid',
    requestBytes: 2,
  }) as DeliverySummary;

/** An admin API that counts its calls. */
class FakeSource implements ExplorerSource {
  calls: string[] = [];
  list: InstanceSummary[] = [summary('a')];
  described: Record<string, InstanceDetails> = {
    a: {
      namespace: 'WEBHOOK_AGENT',
      agent: 'webhook-agent',
      name: 'a',
      awake: true,
      connections: 0,
      state: { lastEventType: 'push' },
      tables: [{ name: 'events', rows: 3 }],
    },
  };
  rows: EventRow[] = [row('e2', '2026-01-02'), row('e1', '2026-01-01')];
  async instances() {
    this.calls.push('instances');
    return this.list;
  }
  async details(instances: readonly InstanceRef[]) {
    this.calls.push(`details ${instances.map((i) => i.name).join(',')}`);
    return instances.map((i) => this.described[i.name]).filter((d) => d !== undefined);
  }
  async events(_namespace: string, name: string) {
    this.calls.push(`events ${name}`);
    return this.rows;
  }
  async deliveries() {
    this.calls.push('deliveries');
    return [delivery('d1', '2026-01-01')];
  }
  async captures() {
    this.calls.push('captures');
    return { captures: [], dropped: 0 };
  }
}

async function connected() {
  const timers = new ManualTimers();
  const source = new FakeSource();
  const model = new ExplorerModel({ timers, paceMs: 250 });
  const changes: ExplorerChange[] = [];
  model.onDidChange((change) => changes.push(change));
  model.connect(source);
  model.apply({ type: 'hello' });
  await model.ready();
  await timers.advance(0);
  return { model, source, timers, changes };
}

const live = (model: ExplorerModel, ...messages: LiveMessage[]) => messages.forEach((m) => model.apply(m));

describe('the explorer model', () => {
  it('reads the lists once on the feed’s hello, and redraws everything then', async () => {
    const { model, source, changes } = await connected();
    assert.deepEqual(source.calls.sort(), ['captures', 'deliveries', 'instances']);
    assert.deepEqual(
      model.instances('WEBHOOK_AGENT').map((e) => e.summary.name),
      ['a'],
    );
    assert.equal(changes.length, 1);
    assert.equal(changes[0]!.all, true);
  });

  it('reads an instance’s details and events once, then follows the feed with no request', async () => {
    const { model, source, timers, changes } = await connected();
    await model.loadDetails(model.instances('WEBHOOK_AGENT'));
    await model.loadEvents('WEBHOOK_AGENT', 'a');
    source.calls = [];
    // A second after the lists were drawn: their next change is due.
    await timers.advance(1000);
    changes.length = 0;
    live(
      model,
      { type: 'state', namespace: 'WEBHOOK_AGENT', name: 'a', state: { lastEventType: 'issues' } },
      { type: 'event', namespace: 'WEBHOOK_AGENT', name: 'a', event: row('e3', '2026-01-03') },
      { type: 'delivery', delivery: delivery('d2', '2026-01-03') },
    );
    await timers.advance(250);
    assert.deepEqual(source.calls, [], 'no admin request per webhook');
    const entry = model.instance('WEBHOOK_AGENT', 'a')!;
    assert.deepEqual([entry.state, entry.eventCount, entry.events?.map((e) => e.id)], [{ lastEventType: 'issues' }, 4, ['e3', 'e2', 'e1']]);
    assert.deepEqual(
      model.deliveries.map((d) => d.id),
      ['d2', 'd1'],
    );
    assert.equal(changes.length, 1, 'one change for the burst');
    const [change] = changes;
    assert.deepEqual([change!.all, [...change!.instances], [...change!.events], change!.deliveries], [false, ['WEBHOOK_AGENT/a'], ['WEBHOOK_AGENT/a'], true]);
  });

  it('adds a created instance to its namespace, known and empty, without reading it', async () => {
    const { model, source, timers, changes } = await connected();
    source.calls = [];
    changes.length = 0;
    live(
      model,
      { type: 'instance', kind: 'created', namespace: 'WEBHOOK_AGENT', name: 'b', instance: summary('b', true) },
      { type: 'instance', kind: 'woken', namespace: 'WEBHOOK_AGENT', name: 'b', instance: summary('b', true) },
      { type: 'event', namespace: 'WEBHOOK_AGENT', name: 'b', event: row('x', '2026-01-05') },
    );
    await timers.advance(250);
    await model.loadDetails(model.instances('WEBHOOK_AGENT'));
    assert.deepEqual(source.calls, ['details a'], 'only the instance listed before the feed said anything is read');
    const b = model.instance('WEBHOOK_AGENT', 'b')!;
    assert.deepEqual([b.known, b.eventCount, b.events?.map((e) => e.id), b.summary.awake], [true, 1, ['x'], true]);
    assert.deepEqual([...changes[0]!.namespaces], ['WEBHOOK_AGENT']);
  });

  it("counts events from the feed no higher than the worker's retention keeps", async () => {
    const timers = new ManualTimers();
    const model = new ExplorerModel({ timers, paceMs: 250, retainedEvents: () => 2 });
    model.connect(new FakeSource());
    model.apply({ type: 'hello' });
    await model.ready();
    live(model, { type: 'instance', kind: 'created', namespace: 'WEBHOOK_AGENT', name: 'r', instance: summary('r', true) });
    for (const id of ['r1', 'r2', 'r3', 'r4']) live(model, { type: 'event', namespace: 'WEBHOOK_AGENT', name: 'r', event: row(id, `2026-01-0${id.slice(1)}`) });
    assert.equal(model.instance('WEBHOOK_AGENT', 'r')!.eventCount, 2);
  });

  it('takes a deleted instance out, and reads a cleared one’s details again', async () => {
    const { model, source, timers, changes } = await connected();
    await model.loadDetails(model.instances('WEBHOOK_AGENT'));
    source.described['a'] = { ...source.described['a']!, tables: [{ name: 'events', rows: 0 }] };
    changes.length = 0;
    live(model, { type: 'instance', kind: 'changed', namespace: 'WEBHOOK_AGENT', name: 'a' });
    await new Promise((resolve) => setImmediate(resolve));
    await timers.advance(250);
    assert.equal(model.instance('WEBHOOK_AGENT', 'a')!.eventCount, 0);
    live(model, { type: 'instance', kind: 'deleted', namespace: 'WEBHOOK_AGENT', name: 'a' });
    await timers.advance(250);
    assert.equal(model.instance('WEBHOOK_AGENT', 'a'), undefined);
    assert.equal(changes.at(-1)!.namespaceList, true, 'the namespace has no instance left');
  });

  it('fires at most one change per pace however long the traffic lasts, the first at once', async () => {
    const { model, timers, changes } = await connected();
    changes.length = 0;
    await timers.advance(1000);
    for (let i = 0; i < 100; i++) {
      model.apply({ type: 'delivery', delivery: delivery(`n${i}`, `2026-02-01T00:00:${String(i % 60).padStart(2, '0')}`) });
      await timers.advance(10);
    }
    // 1 s of traffic at one message per 10 ms: the first at once, then one per second, the lists' pace.
    assert.ok(changes.length >= 1 && changes.length <= 2, String(changes.length));
  });

  it('redraws the instances a webhook touched every 250 ms under steady traffic, and the whole lists once a second', async () => {
    const { model, timers, changes } = await connected();
    await timers.advance(1000);
    changes.length = 0;
    // 2 s of webhooks, one per 10 ms, each a state and a delivery, as the feed sends them.
    for (let i = 0; i < 200; i++) {
      live(
        model,
        { type: 'state', namespace: 'WEBHOOK_AGENT', name: 'a', state: { n: i } },
        { type: 'delivery', delivery: delivery(`s${i}`, new Date(Date.UTC(2026, 1, 1) + i * 1000).toISOString()) },
      );
      await timers.advance(10);
    }
    await timers.advance(1000);
    const instances = changes.filter((c) => c.instances.size > 0).length;
    const lists = changes.filter((c) => c.deliveries).length;
    assert.ok(instances >= 8 && instances <= 9, `instance changes: ${instances}`);
    assert.ok(lists >= 2 && lists <= 3, `list changes: ${lists}`);
    assert.equal(model.deliveries[0]!.id, 's199', 'the last delivery is drawn in the end');
    assert.equal(changes.at(-1)!.deliveries, true);
  });

  it('shows 100 more deliveries at the next pace when asked, even right after the list was redrawn', async () => {
    const { model, timers, changes } = await connected();
    changes.length = 0;
    await model.showMoreDeliveries();
    await timers.advance(250);
    assert.ok(
      changes.some((c) => c.deliveries),
      'the list redrawn within 250 ms',
    );
  });

  it('keeps what it knows when the serve process stops', async () => {
    const { model } = await connected();
    model.connect(undefined);
    await model.ready();
    assert.deepEqual([model.instances('WEBHOOK_AGENT').length, model.deliveries.length], [1, 1]);
  });
});

describe('merging rows into a list the explorer keeps', () => {
  type Row = { id: string; at: string };
  /** What a merge means, written the slow way: added first, one row per id, newest first (stable), cut. */
  const meaning = (into: Row[], added: Row[], limit: number) => {
    const byId = new Map<string, Row>();
    for (const row of [...added, ...into]) if (!byId.has(row.id)) byId.set(row.id, row);
    return [...byId.values()].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, limit);
  };
  // A small generator of its own, so a failure names a seed that fails again.
  const rows = (seed: number) => {
    let s = seed;
    const next = (n: number) => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % n);
    const row = (): Row => ({ id: `r${next(30)}`, at: `t${String(next(12)).padStart(2, '0')}` });
    return { row, next };
  };

  it('gives what sorting everything gives, for lists in order, out of order, with ties and repeated ids', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const { row, next } = rows(seed);
      const kept = meaning([], Array.from({ length: next(20) }, row), 100);
      // Most lists the model merges into are its own (in order); some come from a server as they are.
      const into = seed % 4 === 0 ? Array.from({ length: next(20) }, row) : kept;
      const added = Array.from({ length: next(4) }, row);
      const limit = 1 + next(25);
      assert.deepEqual(
        merge(into, added, (r) => r.at, limit),
        meaning(into, added, limit),
        `seed ${seed}`,
      );
      // A live message's row into a list this merge gave (its one-row path), again and again.
      let list = merge([], kept, (r) => r.at, 100);
      for (let n = 0; n < 5; n++) {
        const one = [row()];
        const cut = 1 + next(25);
        const expected = meaning(list, one, cut);
        list = merge(list, one, (r) => r.at, cut);
        assert.deepEqual(list, expected, `seed ${seed}, message ${n}`);
      }
    }
  });

  it('puts a new row above older ones and above rows of its own time, and keeps the limit', () => {
    const list = [
      { id: 'b', at: 't2' },
      { id: 'a', at: 't1' },
    ];
    assert.deepEqual(
      merge(list, [{ id: 'c', at: 't2' }], (r) => r.at, 2).map((r) => r.id),
      ['c', 'b'],
    );
    assert.deepEqual(
      merge(list, [{ id: 'a', at: 't3' }], (r) => r.at, 5).map((r) => r.id),
      ['a', 'b'],
    );
  });
});
