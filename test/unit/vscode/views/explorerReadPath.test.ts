// The explorer against a real serve on loopback: an expanded instance is read over its agent's
// WebSocket (state from the broadcast, events from `getEvents`), through the admin API's SQL when
// the worker has no such callable or no agents route; channels close on collapse and are bounded.
import '../../helpers/vscodeShim';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../../../src/core/log';
import { readWranglerConfig } from '../../../../src/core/workerConfig/wranglerConfig';
import { AdminClient } from '../../../../src/vscode/client/adminClient';
import { localReader, type InstanceReader } from '../../../../src/vscode/client/instanceReader';
import { ExplorerModel, type ExplorerChange } from '../../../../src/vscode/views/explorerModel';
import { AdminRequests } from '../../helpers/adminRequests';
import { AgentCalls } from '../../helpers/agentCalls';
import { projectRoot, serveDefaultWorker, serveFixture, type Served } from '../../helpers/serveWorker';
import { githubPush, SECRETS } from '../../workers/payloads';

const TOKEN = 'explorer-read-path-token';

interface Explorer {
  readonly client: AdminClient;
  /** The admin requests the client sent (helpers/adminRequests.ts). */
  readonly requests: AdminRequests;
  /** The RPC calls the readers sent over their agents' WebSockets (helpers/agentCalls.ts). */
  readonly calls: AgentCalls;
  readonly model: ExplorerModel;
  /** Every reader the model opened, by instance name. */
  readonly readers: Map<string, InstanceReader & { disposed?: boolean }>;
  /** Resolves when `check` holds after a change of the model (at once if it holds now). */
  until(check: () => boolean): Promise<void>;
  dispose(): Promise<void>;
}

/** The explorer's client side on `url`: the admin client, its live feed into the model, channels. */
export async function explorerOn(url: string, maxChannels = 16): Promise<Explorer> {
  const client = new AdminClient(url, TOKEN, nullLogger);
  const requests = new AdminRequests(url);
  // The readers' sockets go through a relay that counts their calls; their fallback is the client's.
  const calls = await AgentCalls.start(url);
  const wire = {
    baseUrl: calls.url,
    ownerHeaders: client.ownerHeaders,
    events: (namespace: string, name: string, limit?: number) => client.events(namespace, name, limit),
  };
  const readers = new Map<string, InstanceReader & { disposed?: boolean }>();
  const model = new ExplorerModel({
    paceMs: 0,
    maxChannels,
    openChannel: (instance) => {
      const reader: InstanceReader & { disposed?: boolean } = localReader(wire, instance);
      const dispose = reader.dispose.bind(reader);
      reader.dispose = () => ((reader.disposed = true), dispose());
      readers.set(instance.name, reader);
      return reader;
    },
  });
  const changes: ExplorerChange[] = [];
  model.onDidChange((change) => changes.push(change));
  model.connect(client);
  client.onLive((message) => model.apply(message));
  client.connectLive();
  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      if (check()) return resolve();
      const subscription = model.onDidChange(() => {
        if (!check()) return;
        subscription.dispose();
        resolve();
      });
    });
  await until(() => changes.some((c) => c.all));
  await model.ready();
  return { client, requests, calls, model, readers, until, dispose: () => (model.dispose(), client.dispose(), requests.dispose(), calls.close()) };
}

const post = (url: string, body: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', body, headers }).then((r) => r.status);
/** A signed push as [body, headers], for `post(url, ...push(repo, id))`. */
const push = (repo: string, id: string): [string, Record<string, string>] => {
  const delivery = githubPush(repo, id);
  return [delivery.body, delivery.headers];
};

describe('the explorer reads an expanded instance of the built-in worker over the agents protocol', () => {
  let served: Served;
  let explorer: Explorer;
  before(async () => {
    served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN });
    explorer = await explorerOn(served.url, 2);
  });
  after(async () => {
    await explorer.dispose();
    await served.stop();
  });

  it('reads its events through getEvents and its state from the broadcast, with no admin request', async () => {
    for (let i = 0; i < 3; i++) assert.equal(await post(`${served.url}/webhooks/github/acme-read`, ...push('acme/read', `read-${i}`)), 200);
    const { model, requests: sent, readers } = explorer;
    await explorer.until(() => model.instance('WEBHOOK_AGENT', 'acme-read') !== undefined);
    const requests = sent.count;
    const calls = explorer.calls.count;
    model.expand('WEBHOOK_AGENT', 'acme-read');
    const events = await model.loadEvents('WEBHOOK_AGENT', 'acme-read');
    assert.equal(events.length, 3);
    assert.deepEqual(model.readPath('WEBHOOK_AGENT', 'acme-read'), { channel: true, events: 'callable' });
    assert.equal(sent.count, requests, 'events came over the agent’s WebSocket, not the admin API');
    assert.equal(explorer.calls.count - calls, 1, 'one RPC call on the wire');

    const reader = readers.get('acme-read')!;
    const total = () => (reader.state as { stats?: { total: number } } | undefined)?.stats?.total;
    await explorer.until(() => total() === 3);
    const fourth = new Promise<unknown>((resolve) =>
      reader.onDidChangeState((state) => (state as { stats: { total: number } }).stats.total === 4 && resolve(state)),
    );
    assert.equal(await post(`${served.url}/webhooks/github/acme-read`, ...push('acme/read', 'read-3')), 200);
    assert.equal(((await fourth) as { lastEventType: string }).lastEventType, 'push');
    assert.equal(sent.count, requests, 'a webhook makes no admin request');
  });

  it('closes the channel on collapse, and keeps at most the bound open', async () => {
    const { model, readers } = explorer;
    for (const name of ['bound-a', 'bound-b', 'bound-c'])
      assert.equal(await post(`${served.url}/webhooks/github/${name}`, ...push(`acme/${name}`, `${name}-1`)), 200);
    await explorer.until(() => ['bound-a', 'bound-b', 'bound-c'].every((n) => model.instance('WEBHOOK_AGENT', n)));
    model.collapse('WEBHOOK_AGENT', 'acme-read');
    assert.equal(readers.get('acme-read')!.disposed, true);
    for (const name of ['bound-a', 'bound-b', 'bound-c']) model.expand('WEBHOOK_AGENT', name);
    assert.equal(model.channelCount, 2, 'the bound is 2');
    assert.equal(readers.get('bound-a')!.disposed, true, 'the least recently expanded one closed');
    assert.deepEqual(model.readPath('WEBHOOK_AGENT', 'bound-c').channel, true);
  });
});

describe('the explorer falls back to the admin API’s SQL for a worker without getEvents', () => {
  const root = path.join(projectRoot(), 'test', 'fixtures', 'workers', 'ledger');
  const config = readWranglerConfig(path.join(root, 'wrangler.jsonc'));

  it('reads the events by SQL and the state from the broadcast when the agent has no such callable', async () => {
    const served = await serveFixture('ledger', { adminToken: TOKEN });
    const explorer = await explorerOn(served.url);
    try {
      for (const title of ['one', 'two', 'three']) assert.equal(await post(`${served.url}/entries/bob`, title), 200);
      const { model, readers } = explorer;
      await explorer.until(() => model.instance('LEDGER_AGENT', 'bob') !== undefined);
      model.expand('LEDGER_AGENT', 'bob');
      const events = await model.loadEvents('LEDGER_AGENT', 'bob');
      assert.deepEqual(
        events.map((e) => e.title),
        ['three', 'two', 'one'],
      );
      assert.deepEqual(model.readPath('LEDGER_AGENT', 'bob'), { channel: true, events: 'fallback' });
      const reader = readers.get('bob')!;
      await explorer.until(() => (reader.state as { entries?: number } | undefined)?.entries === 3);
      assert.equal((reader.state as { last: string }).last, 'three');
    } finally {
      await explorer.dispose();
      await served.stop();
    }
  });

  it('reads the events by SQL when the worker has no agents route at all', async () => {
    const served = await serveFixture('ledger', {
      adminToken: TOKEN,
      root,
      worker: { entry: path.join(root, 'src', 'index.ts'), config: { ...config, vars: { NO_AGENTS_ROUTE: '1' } } },
    });
    const explorer = await explorerOn(served.url);
    try {
      assert.equal(await post(`${served.url}/entries/ann`, 'only'), 200);
      const { model, readers } = explorer;
      await explorer.until(() => model.instance('LEDGER_AGENT', 'ann') !== undefined);
      model.expand('LEDGER_AGENT', 'ann');
      const events = await model.loadEvents('LEDGER_AGENT', 'ann');
      assert.deepEqual(
        events.map((e) => e.title),
        ['only'],
      );
      assert.equal(readers.get('ann')!.connection.refused, true, 'the upgrade was refused, and not asked again');
      assert.deepEqual(model.readPath('LEDGER_AGENT', 'ann'), { channel: true, events: 'fallback' });
    } finally {
      await explorer.dispose();
      await served.stop();
    }
  });
});
