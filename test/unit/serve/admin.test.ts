// The admin API, the deliveries log, the sink and the live feed, against the built-in worker.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import WebSocket from 'ws';
import { LIVE_BATCHED_QUERY, parseLiveFrame, type LiveMessage } from '../../../src/core/contract/live';
import { schemeFor } from '../../../src/core/signing';
import { serveDefaultWorker, type Served } from '../helpers/serveWorker';
import { githubPush, SECRETS } from '../workers/payloads';

const TOKEN = 'admin-token-for-tests';
const SINK_SECRET = 'sink-secret';
let served: Served;
before(async () => {
  served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN, sinkSecret: SINK_SECRET });
});
after(() => served.stop());

const admin = async (urlPath: string, init: RequestInit = {}, token: string | null = TOKEN) => {
  const headers = new Headers(init.headers);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  const response = await fetch(`${served.url}/__hookbench/${urlPath}`, { ...init, headers });
  // Admin answers are loosely typed JSON; each test reads the fields it checks.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as any };
};

/**
 * Resolves once `check` holds, looked at now and as each message arrives on the sockets; rejects
 * saying `what` if it does not within 10 s (a broken feed fails the test instead of hanging it).
 */
function arrived(sockets: WebSocket[], check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      for (const socket of sockets) socket.off('message', look);
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${what}: not within 10 s`));
    }, 10_000);
    const look = () => {
      if (!check()) return;
      stop();
      resolve();
    };
    for (const socket of sockets) socket.on('message', look);
    look();
  });
}

const webhook = (urlPath: string, delivery: { body: string; headers: Record<string, string> }) =>
  fetch(served.url + urlPath, { method: 'POST', body: delivery.body, headers: delivery.headers });

describe('admin token', () => {
  it('refuses a missing or wrong token with 401, in constant time', async () => {
    assert.equal((await admin('instances', {}, null)).status, 401);
    assert.equal((await admin('instances', {}, 'wrong')).status, 401);
    assert.equal((await admin('instances', {}, TOKEN + 'x')).status, 401);
    assert.deepEqual((await admin('instances', {}, 'wrong')).body, { error: 'missing or wrong admin token' });
  });

  it('answers 403 on every admin route when no token is configured', async () => {
    const open = await serveDefaultWorker({ secrets: SECRETS });
    try {
      const response = await fetch(`${open.url}/__hookbench/instances`, { headers: { authorization: 'Bearer anything' } });
      assert.equal(response.status, 403);
      assert.match(((await response.json()) as { error: string }).error, /admin-token/);
    } finally {
      await open.stop();
    }
  });
});

describe('instances', () => {
  it('lists instances, shows state and tables, runs read-only queries, deletes', async () => {
    assert.equal((await webhook('/webhooks/github/admin-repo', githubPush('Acme/Admin', 'adm-1'))).status, 200);
    const list = await admin('instances');
    assert.ok(
      list.body.instances.some(
        (i: { name: string; namespace: string; agent: string }) => i.name === 'admin-repo' && i.namespace === 'WEBHOOK_AGENT' && i.agent === 'webhook-agent',
      ),
    );

    const details = await admin('instances/webhook-agent/admin-repo');
    assert.equal(details.status, 200);
    assert.equal(details.body.state.lastEventType, 'push');
    assert.deepEqual(
      details.body.tables.find((t: { name: string }) => t.name === 'events'),
      { name: 'events', rows: 1 },
    );

    const query = await admin('instances/WEBHOOK_AGENT/admin-repo/query', {
      method: 'POST',
      body: JSON.stringify({ sql: 'SELECT id, type FROM events WHERE type = ?', params: ['push'] }),
    });
    assert.deepEqual(query.body, { columns: ['id', 'type'], rows: [['adm-1', 'push']] });
    for (const sql of ['DELETE FROM events', 'UPDATE events SET type = 1', 'SELECT 1; DELETE FROM events', 'PRAGMA foreign_keys = ON']) {
      const refused = await admin('instances/webhook-agent/admin-repo/query', { method: 'POST', body: JSON.stringify({ sql }) });
      assert.equal(refused.status, 400, sql);
    }
    assert.equal((await admin('instances/webhook-agent/admin-repo/query', { method: 'POST', body: '{' })).status, 400);
    assert.equal((await admin('instances/nope/admin-repo')).status, 404);
    assert.equal((await admin('instances/webhook-agent/never-seen')).status, 404);

    const dir = path.join(served.dataDir, 'nwebhook-agent', 'nadmin-repo');
    assert.ok(fs.existsSync(dir));
    assert.deepEqual((await admin('instances/webhook-agent/admin-repo', { method: 'DELETE' })).body, {
      deleted: true,
      namespace: 'WEBHOOK_AGENT',
      name: 'admin-repo',
    });
    assert.equal(fs.existsSync(dir), false);
    assert.ok(!(await admin('instances')).body.instances.some((i: { name: string }) => i.name === 'admin-repo'));
  });
});

describe('deliveries log', () => {
  it('records accepted and rejected requests with raw bytes, status, provider, entity and the verification outcome', async () => {
    const good = githubPush('Acme/Log', 'log-good');
    const goodResponse = await webhook('/webhooks/github/log-entity', good);
    assert.equal(goodResponse.headers.get('x-hookbench-verification'), null, 'internal notes stay off the wire');
    const bad = { body: good.body + ' ', headers: good.headers };
    assert.equal((await webhook('/webhooks/github/log-entity', bad)).status, 401);
    const { body } = await admin('deliveries?limit=5');
    const [rejected, accepted] = body.deliveries as {
      id: string;
      status: number;
      provider: string;
      entity: string;
      verification: string;
      path: string;
      requestBytes: number;
    }[];
    assert.equal(rejected!.status, 401);
    assert.equal(rejected!.provider, 'github');
    assert.equal(rejected!.entity, 'log-entity');
    assert.match(rejected!.verification, /^mismatch: X-Hub-Signature-256 does not match/);
    assert.equal(accepted!.status, 200);
    assert.equal(accepted!.verification, 'valid');
    assert.equal(accepted!.path, '/webhooks/github/log-entity');
    const full = await admin(`deliveries/${accepted!.id}`);
    assert.equal(Buffer.from(full.body.requestBodyBase64, 'base64').toString('utf8'), good.body);
    assert.equal(full.body.responseBody, 'OK');
    assert.equal(full.body.requestHeaders['x-github-delivery'], 'log-good');
    assert.equal((await admin('deliveries/not-an-id')).status, 404);
  });

  it('records the event a delivery was stored as, and marks the same delivery id again as a duplicate', async () => {
    const delivery = githubPush('Acme/Dup', 'dup-1');
    assert.equal((await webhook('/webhooks/github/dup-entity', delivery)).headers.get('hookbench-outcome'), null);
    const again = await webhook('/webhooks/github/dup-entity', delivery);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('hookbench-outcome'), 'duplicate');
    const { body } = await admin('deliveries?limit=2');
    const [second, first] = body.deliveries as { event: string | null; entity: string; duplicate?: boolean }[];
    assert.deepEqual([first!.event, first!.entity, first!.duplicate], ['dup-1', 'dup-entity', undefined]);
    assert.deepEqual([second!.event, second!.duplicate], ['dup-1', true]);
  });
});

describe('sink and live feed', () => {
  it('captures outbound webhooks byte for byte, checks X-Signature, and streams everything on the live feed', async () => {
    const live = new WebSocket(`${served.url.replace('http', 'ws')}/__hookbench/live?token=${TOKEN}`);
    const messages: { type: string }[] = [];
    await new Promise<void>((resolve, reject) => {
      live.on('message', (data) => {
        messages.push(JSON.parse(data.toString()));
        if (messages.length === 1) resolve();
      });
      live.on('error', reject);
    });
    const body = '{"text":"Deployed ✓"}';
    const signature = schemeFor('generic').sign({ secret: SINK_SECRET, body: Buffer.from(body) }).headers['X-Signature']!;
    const good = await fetch(`${served.url}/__hookbench/sink/chat`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'X-Signature': signature },
    });
    assert.deepEqual(((await good.json()) as { verification: string }).verification, 'valid');
    const bad = await fetch(`${served.url}/__hookbench/sink/chat`, { method: 'POST', body, headers: { 'X-Signature': '00' } });
    assert.match(((await bad.json()) as { verification: string }).verification, /^mismatch/);
    await webhook('/webhooks/github/live-entity', githubPush('Acme/Live', 'live-1'));
    const has = (type: string) => messages.some((m) => m.type === type);
    await arrived(
      [live],
      () => has('outbound') && has('delivery') && has('instance'),
      `outbound, delivery and instance messages (seen: ${JSON.stringify(messages.map((m) => m.type))})`,
    ).catch(() => undefined);
    assert.ok(has('outbound') && has('delivery') && has('instance'), JSON.stringify(messages.map((m) => m.type)));
    const captures = (await admin('sink/chat')).body.captures as { body: string; verification: string }[];
    assert.equal(captures[0]!.body, body);
    assert.match(captures[0]!.verification, /^mismatch/);
    assert.equal(captures[1]!.verification, 'valid');
    live.close();
  });

  it('tells the live feed what changed, with the data a view needs: the new instance, its state, the event stored', async () => {
    const live = new WebSocket(`${served.url.replace('http', 'ws')}/__hookbench/live?token=${TOKEN}`);
    const messages: LiveMessage[] = [];
    await new Promise<void>((resolve, reject) => {
      live.on('message', (data) => {
        messages.push(JSON.parse(data.toString()) as LiveMessage);
        resolve();
      });
      live.on('error', reject);
    });
    const push = githubPush('Acme/Incremental', 'incremental-1');
    assert.equal((await webhook('/webhooks/github/incremental-entity', push)).status, 200);
    const about = (m: LiveMessage) => 'name' in m && m.name === 'incremental-entity';
    const seen = () => messages.filter(about).map((m) => (m.type === 'instance' ? m.kind : m.type));
    await arrived([live], () => seen().includes('event') && seen().includes('state'), 'the event and the state').catch(() => undefined);
    assert.deepEqual(seen(), ['created', 'woken', 'event', 'state']);
    const created = messages.find((m) => about(m) && m.type === 'instance' && m.kind === 'created');
    assert.deepEqual(created?.type === 'instance' && 'instance' in created ? created.instance : undefined, {
      namespace: 'WEBHOOK_AGENT',
      agent: 'webhook-agent',
      className: 'WebhookAgent',
      name: 'incremental-entity',
      awake: true,
      connections: 0,
    });
    const state = messages.find((m) => about(m) && m.type === 'state');
    assert.deepEqual(state?.type === 'state' ? (state.state as { stats: unknown }).stats : undefined, { total: 1, byType: { push: 1 } });
    const event = messages.find((m) => about(m) && m.type === 'event');
    assert.ok(event?.type === 'event');
    assert.deepEqual(Object.keys(event.event).sort(), ['action', 'id', 'timestamp', 'title', 'type'], 'the row without its payload');
    assert.deepEqual([event.event.id, event.event.type], ['incremental-1', 'push']);
    const again = messages.length;
    assert.equal((await webhook('/webhooks/github/incremental-entity', push)).status, 200);
    // The feed keeps the order things happened in: once the state of a webhook sent after the
    // duplicate arrives, whatever the duplicate caused has arrived before it.
    assert.equal((await webhook('/webhooks/github/incremental-after', githubPush('Acme/Incremental', 'incremental-after-1'))).status, 200);
    await arrived(
      [live],
      () => messages.slice(again).some((m) => m.type === 'state' && m.name === 'incremental-after'),
      'the state of the webhook sent after the duplicate',
    );
    assert.deepEqual(messages.slice(again).filter(about), [], 'a duplicate stores nothing and changes no state');
    live.close();
  });

  it('gives a client that asks for batches the same messages in the same order, in fewer frames', async () => {
    const connect = (query: string) => {
      const socket = new WebSocket(`${served.url.replace('http', 'ws')}/__hookbench/live?token=${TOKEN}${query}`);
      const frames: string[] = [];
      socket.on('message', (data) => frames.push(data.toString()));
      return { socket, frames, open: new Promise<void>((resolve, reject) => (socket.on('open', () => resolve()), socket.on('error', reject))) };
    };
    const single = connect('');
    const batched = connect(`&${LIVE_BATCHED_QUERY}`);
    await Promise.all([single.open, batched.open]);
    const about = (m: LiveMessage) => m.type !== 'hello' && JSON.stringify(m).includes('batched-entity');
    await Promise.all(Array.from({ length: 20 }, (_, n) => webhook(`/webhooks/github/batched-entity-${n % 4}`, githubPush('Acme/Batched', `batched-${n}`))));
    const messages = (frames: string[]) => frames.flatMap(parseLiveFrame).filter(about);
    const complete = () => messages(single.frames).length >= 60 && messages(batched.frames).length >= messages(single.frames).length;
    await arrived([single.socket, batched.socket], complete, 'every message, on both').catch(() => undefined);
    assert.ok(messages(single.frames).length >= 60, `a delivery, an event and a state for each of 20 webhooks: ${messages(single.frames).length}`);
    assert.deepEqual(messages(batched.frames), messages(single.frames));
    assert.ok(
      single.frames.every((f) => !f.startsWith('[')),
      'one message a frame without ?batch=1',
    );
    assert.ok(batched.frames.length < single.frames.length / 2, `${batched.frames.length} batched frames against ${single.frames.length}`);
    single.socket.close();
    batched.socket.close();
  });

  it('refuses the live feed without the token', async () => {
    const refused = new WebSocket(`${served.url.replace('http', 'ws')}/__hookbench/live`);
    const outcome = await new Promise<string>((resolve) => {
      refused.on('open', () => resolve('open'));
      refused.on('error', (error) => resolve(error.message));
    });
    assert.match(outcome, /401/);
  });
});

describe('clearing events', () => {
  it('deletes an instance’s events, keeps its state, and links deliveries to the events they stored', async () => {
    await webhook('/webhooks/github/clear-me', githubPush('Acme/Clear', 'clear-1'));
    await webhook('/webhooks/github/clear-me', githubPush('Acme/Clear', 'clear-2'));
    const deliveries = (await admin('deliveries?limit=2')).body.deliveries as { event: string }[];
    assert.deepEqual(
      deliveries.map((d) => d.event),
      ['clear-2', 'clear-1'],
    );
    assert.deepEqual((await admin('instances/webhook-agent/clear-me/events', { method: 'DELETE' })).body, { deleted: 2 });
    const details = await admin('instances/webhook-agent/clear-me');
    assert.equal(details.body.tables.find((t: { name: string }) => t.name === 'events').rows, 0);
    assert.equal(details.body.state.stats.total, 2);
    assert.equal((await admin('instances/webhook-agent/nobody/events', { method: 'DELETE' })).status, 404);
  });
});

describe('read-only queries', () => {
  const query = (name: string, sql: string, extra: Record<string, unknown> = {}) =>
    admin(`instances/webhook-agent/${name}/query`, { method: 'POST', body: JSON.stringify({ sql, ...extra }) });

  it('answers SELECT * FROM events with columns and rows, and no truncated flag', async () => {
    assert.equal((await webhook('/webhooks/github/ro-select', githubPush('Acme/Select', 'sel-1'))).status, 200);
    const { status, body } = await query('ro-select', 'SELECT * FROM events');
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(Object.keys(body), ['columns', 'rows']);
    assert.ok(body.columns.includes('id') && body.columns.includes('type'));
    assert.equal(body.rows.length, 1);
    assert.equal(body.rows[0][body.columns.indexOf('id')], 'sel-1');
  });

  it('refuses PRAGMA user_version(1337) as read-only and leaves user_version as it was', async () => {
    assert.equal((await webhook('/webhooks/github/ro-version', githubPush('Acme/Version', 'ver-1'))).status, 200);
    const before = (await query('ro-version', 'PRAGMA user_version')).body.rows;
    for (const sql of ['PRAGMA user_version(1337)', 'PRAGMA user_version = 1337', 'PRAGMA main.user_version(1337)', 'EXPLAIN PRAGMA user_version(1337)']) {
      const refused = await query('ro-version', sql);
      assert.equal(refused.status, 400, sql);
      assert.match(refused.body.error, /read-only/, sql);
    }
    assert.deepEqual((await query('ro-version', 'PRAGMA user_version')).body.rows, before);
    const info = await query('ro-version', 'PRAGMA table_info(events)');
    assert.equal(info.status, 200, 'table_info(x) is a read');
    assert.ok(info.body.rows.some((row: unknown[]) => row[info.body.columns.indexOf('name')] === 'id'));
  });

  it('refuses PRAGMA query_only(1), and the instance still takes its next delivery', async () => {
    assert.equal((await webhook('/webhooks/github/ro-query-only', githubPush('Acme/QueryOnly', 'qo-1'))).status, 200);
    const refused = await query('ro-query-only', 'PRAGMA query_only(1)');
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /read-only/);
    assert.equal((await webhook('/webhooks/github/ro-query-only', githubPush('Acme/QueryOnly', 'qo-2'))).status, 200);
    assert.deepEqual((await query('ro-query-only', 'SELECT count(*) AS n FROM events')).body, { columns: ['n'], rows: [[2]] });
  });

  // The first runs until stopped; the second, a plain SELECT around a recursive one, held the main
  // thread for seconds when queries ran there.
  const recursive = [
    { name: 'ro-loop', sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c' },
    { name: 'ro-nested-loop', sql: 'SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 50000000) SELECT x FROM c)' },
  ];
  for (const { name, sql } of recursive) {
    it(`stops ${sql.slice(0, 22)}… at its time limit, and answers a webhook to the same instance while it runs`, async () => {
      assert.equal((await webhook(`/webhooks/github/${name}`, githubPush('Acme/Loop', `${name}-1`))).status, 200);
      const answered: string[] = [];
      const started = Date.now();
      const stopped = query(name, sql, { timeoutMs: 300 }).then((result) => {
        answered.push('query');
        return { ...result, ms: Date.now() - started };
      });
      const delivered = webhook(`/webhooks/github/${name}`, githubPush('Acme/Loop', `${name}-2`)).then((response) => {
        answered.push('webhook');
        return response;
      });
      const [result, response] = await Promise.all([stopped, delivered]);
      assert.equal(response.status, 200);
      assert.deepEqual(answered, ['webhook', 'query']);
      assert.equal(result.status, 408, JSON.stringify(result.body));
      assert.match(result.body.error, /^query stopped after 300 ms: /);
      assert.ok(result.ms >= 300 && result.ms < 2300, `answered after ${result.ms} ms`);
      // The stopped worker is replaced for the next query.
      assert.deepEqual((await query(name, 'SELECT count(*) AS n FROM events')).body, { columns: ['n'], rows: [[2]] });
    });
  }

  it('answers at most 10,000 rows, and says truncated when there were more', async () => {
    await webhook('/webhooks/github/ro-rows', githubPush('Acme/Rows', 'rows-1'));
    const rows = (n: number) => `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT ${n}) SELECT x FROM c`;
    const capped = await query('ro-rows', rows(10_001));
    assert.equal(capped.status, 200, JSON.stringify(capped.body));
    assert.equal(capped.body.rows.length, 10_000);
    assert.deepEqual(capped.body.rows.at(-1), [10_000]);
    assert.equal(capped.body.truncated, true);
    const whole = await query('ro-rows', rows(10_000));
    assert.equal(whole.body.rows.length, 10_000);
    assert.equal('truncated' in whole.body, false);
  });
});
