// What the Deliveries view and a delivery's document show (docs/explorer.md, "Deliveries"): rows
// named by event type and entity with their outcome and source, the filter, the document with its
// credentials redacted; and the Agents view never answering the same node id twice when a read of a
// node is overtaken by a newer read of it (VS Code registers every answer).
import '../../helpers/vscodeShim';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliveryDetails } from '../../../../src/core/contract/admin';
import type { DeliverySummary } from '../../../../src/core/contract/deliveries';
import type { InstanceDetails, InstanceRef, InstanceSummary } from '../../../../src/core/contract/instances';
import { Emitter } from '../../../../src/core/events';
import { deliveryText, deliveryTitle } from '../../../../src/vscode/deliveryDocument';
import { AgentsTree, type AgentNode } from '../../../../src/vscode/views/agentsTree';
import { DeliveriesTree, deliveryLabel, outcomeLabel } from '../../../../src/vscode/views/deliveriesTree';
import { matchesDelivery, parseDeliveryFilter, type DeliveryFilter } from '../../../../src/vscode/views/deliveryFilter';
import { ExplorerModel, type ExplorerFeed, type ExplorerSource } from '../../../../src/vscode/views/explorerModel';

const delivery = (fields: Partial<DeliverySummary>): DeliverySummary => ({
  id: 'd-1',
  time: '2026-11-25T10:00:00.000Z',
  method: 'POST',
  path: '/webhooks/github/acme%20widgets',
  requestHeaders: { 'x-github-event': 'push' },
  requestTruncated: false,
  status: 200,
  responseHeaders: {},
  durationMs: 1.5,
  provider: 'github',
  entity: 'acme widgets',
  verification: 'valid',
  eventType: 'push',
  requestBytes: 20,
  ...fields,
});

const filter = (text: string): DeliveryFilter => {
  const parsed = parseDeliveryFilter(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
};

describe('the Deliveries view’s rows', () => {
  it('names a row by event type and entity, decoded, and says how it went', () => {
    assert.equal(deliveryLabel(delivery({})), 'push · acme widgets');
    assert.equal(deliveryLabel(delivery({ eventType: null, entity: null })), 'POST /webhooks/github/acme widgets');
    assert.equal(outcomeLabel(delivery({})), '200 verified');
    assert.equal(outcomeLabel(delivery({ status: 401, verification: 'mismatch: X-Hub-Signature-256 does not match' })), '401 bad signature (mismatch)');
    assert.equal(outcomeLabel(delivery({ status: 401, verification: 'stale: too old' })), '401 stale');
    assert.equal(outcomeLabel(delivery({ duplicate: true })), '200 duplicate');
    // Every other reason in words, not its code.
    assert.equal(
      outcomeLabel(delivery({ status: 401, verification: 'malformed_header: Stripe-Signature has no valid t= timestamp' })),
      '401 bad signature header',
    );
    assert.equal(outcomeLabel(delivery({ status: 401, verification: 'missing_header: no X-Hub-Signature-256' })), '401 no signature header');
    assert.equal(outcomeLabel(delivery({ status: 401, verification: 'no_secret: GITHUB_WEBHOOK_SECRET is not set' })), '401 no secret set');
  });

  it('puts outcome and source first in the description, and opens by a URI naming the delivery', () => {
    const tree = new DeliveriesTree({
      model: new ExplorerModel({ paceMs: 0 }),
      client: undefined,
      onDidChange: new Emitter<never>().event,
      schedule: () => undefined,
    });
    const item = tree.getTreeItem(delivery({ source: { kind: 'replay' } }));
    assert.match(String(item.description), /^200 verified · replay · github · /);
    assert.match(String(tree.getTreeItem(delivery({})).description), /^200 verified · outside · /);
    assert.equal(item.command?.command, 'vscode.open');
    const uri = item.command?.arguments?.[0] as { scheme: string; path: string };
    assert.equal(uri.scheme, 'hookbench');
    assert.match(uri.path, /^\/delivery\/d-1\/push · acme widgets · \d\d:\d\d:\d\d\.http$/);
  });

  it('builds a row’s tooltip only when VS Code asks for it (the pointer on the row), not at each redraw', () => {
    const tree = new DeliveriesTree({
      model: new ExplorerModel({ paceMs: 0 }),
      client: undefined,
      onDidChange: new Emitter<never>().event,
      schedule: () => undefined,
    });
    const d = delivery({ status: 401, verification: 'mismatch: X-Hub-Signature-256 does not match' });
    const item = tree.getTreeItem(d);
    assert.equal(item.tooltip, undefined, 'none at redraw');
    const tooltip = (tree.resolveTreeItem(item, d).tooltip as { value: string }).value;
    assert.match(tooltip, /401/);
    assert.match(tooltip, /verification: mismatch: X-Hub-Signature-256 does not match/);
  });
});

describe('the Deliveries filter', () => {
  const ok = delivery({});
  const bad = delivery({
    id: 'd-2',
    path: '/webhooks/stripe/cus_1',
    status: 401,
    verification: 'mismatch: no',
    entity: 'cus_1',
    provider: 'stripe',
    eventType: 'invoice.paid',
    source: { kind: 'relay', name: 'smee' },
  });
  const duplicate = delivery({ id: 'd-3', duplicate: true, source: { kind: 'send' } });

  it('matches keys and free words, all of them', () => {
    const shown = (text: string) => [ok, bad, duplicate].filter((d) => matchesDelivery(d, filter(text))).map((d) => d.id);
    assert.deepEqual(shown('status:4xx'), ['d-2']);
    assert.deepEqual(shown('status:200'), ['d-1', 'd-3']);
    assert.deepEqual(shown('provider:stripe'), ['d-2']);
    assert.deepEqual(shown('outcome:bad-signature'), ['d-2']);
    assert.deepEqual(shown('outcome:duplicate'), ['d-3']);
    assert.deepEqual(shown('outcome:verified source:outside'), ['d-1']);
    assert.deepEqual(shown('source:smee'), ['d-2']);
    assert.deepEqual(shown('source:send'), ['d-3']);
    assert.deepEqual(shown('entity:acme'), ['d-1', 'd-3']);
    assert.deepEqual(shown('invoice'), ['d-2']);
    assert.deepEqual(shown('ACME widgets'), ['d-1', 'd-3']);
  });

  it('refuses an unknown key or a status that is none, in one line', () => {
    assert.deepEqual(parseDeliveryFilter('colour:red'), {
      error: '"colour" is not a filter key: use provider, entity, status, outcome, source, or a word to search',
    });
    assert.deepEqual(parseDeliveryFilter('status:abc'), { error: '"abc" is not a status: use 401 or 4xx' });
    assert.deepEqual(parseDeliveryFilter('entity:'), { error: '"entity:" needs a value' });
  });

  it('hides what it does not match, and what was cleared, and says so', async () => {
    const model = new ExplorerModel({ paceMs: 0 });
    const source: ExplorerSource = {
      instances: async () => [],
      details: async () => [],
      events: async () => [],
      deliveries: async () => [duplicate, bad, ok],
      captures: async () => ({ captures: [], dropped: 0 }),
    };
    model.connect(source);
    await model.reload();
    const tree = new DeliveriesTree({ model, client: undefined, onDidChange: model.onDidChange, schedule: () => undefined });
    const ids = async () => (await tree.getChildren()).map((d) => (d as DeliverySummary).id);
    assert.deepEqual(await ids(), ['d-3', 'd-2', 'd-1']);
    tree.setFilter(filter('status:4xx'));
    assert.deepEqual(await ids(), ['d-2']);
    assert.equal(tree.describe(), 'filtered: status:4xx');
    tree.showAll();
    assert.equal(tree.describe(), undefined);
    tree.clear(new Date('2026-11-25T10:00:01Z'));
    assert.deepEqual(await ids(), []);
    assert.match(tree.describe()!, /^cleared \d\d:\d\d:\d\d$/);
  });

  it('keeps its filter and last Clear across a reload, and reads back nothing it cannot parse', async () => {
    const tree = () =>
      new DeliveriesTree({ model: new ExplorerModel({ paceMs: 0 }), client: undefined, onDidChange: new Emitter<never>().event, schedule: () => undefined });
    const before = tree();
    assert.deepEqual(before.kept, {});
    before.setFilter(filter('status:4xx acme'));
    before.clear(new Date('2026-11-25T10:00:01Z'));
    const kept = JSON.parse(JSON.stringify(before.kept));
    assert.deepEqual(kept, { filter: 'status:4xx acme', clearedAt: '2026-11-25T10:00:01.000Z' });
    const after = tree();
    after.restore(kept);
    assert.equal(after.describe(), before.describe());
    assert.deepEqual(after.kept, kept);
    // A hand-edited or older state: an unknown key, a date that is none, a wrong type.
    for (const stored of [undefined, null, 'status:4xx', { filter: 'colour:red', clearedAt: 'yesterday' }, { filter: 42, clearedAt: {} }]) {
      const restored = tree();
      restored.restore(stored);
      assert.deepEqual(restored.kept, {}, JSON.stringify(stored));
      assert.equal(restored.narrowed, false);
    }
  });

  it('offers "Show 100 more" for a full page, and not after Clear: the older pages hold only what Clear hid', async () => {
    const model = new ExplorerModel({ paceMs: 0 });
    const page = Array.from({ length: model.listLimit }, (_, i) =>
      delivery({ id: `d-${i}`, time: new Date(Date.parse('2026-11-25T10:00:00Z') - i * 1000).toISOString() }),
    );
    const source: ExplorerSource = {
      instances: async () => [],
      details: async () => [],
      events: async () => [],
      deliveries: async () => page,
      captures: async () => ({ captures: [], dropped: 0 }),
    };
    model.connect(source);
    await model.reload();
    const tree = new DeliveriesTree({ model, client: undefined, onDidChange: model.onDidChange, schedule: () => undefined });
    const labels = async () => (await tree.getChildren()).map((node) => tree.getTreeItem(node).label);
    assert.equal((await labels()).at(-1), 'Show 100 more');
    tree.setFilter(filter('status:4xx'));
    assert.deepEqual(await labels(), ['Show 100 more'], 'a filter may match older deliveries');
    tree.clear(new Date('2026-11-25T10:00:01Z'));
    assert.deepEqual(await labels(), []);
    tree.showAll();
    assert.equal((await labels()).length, model.listLimit + 1);
  });
});

describe('a delivery’s document', () => {
  const details: DeliveryDetails = {
    ...delivery({
      requestHeaders: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': 'sha256=abc123', Authorization: 'Bearer t0ken', 'X-GitHub-Event': 'push' },
      responseHeaders: { 'content-type': 'text/plain' },
    }),
    requestBody: '{"ref":"main","pusher":{"name":"zoe"}}',
    requestBodyBase64: '',
    responseBody: 'OK',
  };

  it('shows the request with credentials redacted, the body as pretty JSON, then the answer and its timing', () => {
    const text = deliveryText(details, 'local send');
    assert.equal(
      text,
      [
        'POST /webhooks/github/acme widgets',
        'Content-Type: application/json',
        'X-Hub-Signature-256: [redacted]',
        'Authorization: [redacted]',
        'X-GitHub-Event: push',
        '',
        '{\n  "ref": "main",\n  "pusher": {\n    "name": "zoe"\n  }\n}',
        '',
        '### 200 · 1.5 ms · valid',
        '# received 2026-11-25T10:00:00.000Z · github · push · entity acme widgets · from local send',
        'content-type: text/plain',
        '',
        'OK',
        '',
      ].join('\n'),
    );
    assert.ok(!text.includes('abc123') && !text.includes('t0ken'));
  });

  it('is titled by event type, entity and time', () => {
    assert.match(deliveryTitle(details), /^push · acme widgets · \d\d:\d\d:\d\d$/);
    assert.match(deliveryTitle({ ...details, eventType: null, entity: 'a/b' }), /^200 POST ∕webhooks∕github∕acme widgets · a∕b · /);
  });
});

describe('the Agents view, when a read of a node is overtaken by a newer one', () => {
  it('answers the newer read only, so no id is registered twice', async () => {
    const summary: InstanceSummary = { namespace: 'ORDER_AGENT', agent: 'order-agent', className: 'OrderAgent', name: 'acme', awake: true, connections: 0 };
    let release!: () => void;
    const described = new Promise<void>((resolve) => (release = resolve));
    const source: ExplorerSource = {
      instances: async () => [summary],
      // The first description of the instance is slow: the user expanded it as traffic came.
      details: async (refs: readonly InstanceRef[]): Promise<InstanceDetails[]> => {
        await described;
        return refs.map((r) => ({ ...summary, ...r, state: { total: 1 }, tables: [{ name: 'events', rows: 1 }] }));
      },
      events: async () => [],
      deliveries: async () => [],
      captures: async () => ({ captures: [], dropped: 0 }),
    };
    const model = new ExplorerModel({ paceMs: 0 });
    model.connect(source);
    await model.reload();
    const feed: ExplorerFeed = { model, client: undefined, onDidChange: model.onDidChange, schedule: () => undefined };
    const tree = new AgentsTree(feed, { list: () => [], connection: () => undefined, onDidChange: new Emitter<void>().event });
    const [namespace] = await tree.getChildren();
    release();
    const [instance] = await tree.getChildren(namespace);
    assert.equal(instance?.kind, 'instance');
    // Two reads of its children at once: VS Code registers both answers' nodes by id.
    const answers = await Promise.all([tree.getChildren(instance), tree.getChildren(instance)]);
    const ids = answers.flat().map((node: AgentNode) => tree.getTreeItem(node).id);
    assert.equal(new Set(ids).size, ids.length, `ids answered: ${ids.join(', ')}`);
    assert.deepEqual(answers[0], []);
    assert.ok(ids.includes('s:ORDER_AGENT/acme'));
  });
});
