// The admin API's bindings routes against a real `hookbench serve --worker` (dist/cli.js) on
// loopback, serving the bindings fixture: data goes in through the worker over HTTP, and each
// route shows it — hostile keys and huge values included.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AdminRoute, AdminRoutes } from '../../../src/core/contract/admin';
import { MAX_SHOWN_VALUE_BYTES } from '../../../src/core/contract/bindings';
import { startServe, type ServeProcess } from '../helpers/serveProcess';
import { projectRoot } from '../helpers/serveWorker';

const TOKEN = 'bindings-admin-token';
const worker = () => path.join(projectRoot(), 'test', 'fixtures', 'workers', 'bindings', 'src', 'index.ts');
let serve: ServeProcess;
let dataDir: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bindings-'));
  serve = await startServe(['--worker', worker(), '--data', dataDir, '--no-watch', '--no-render', '--admin-token', TOKEN]);
});
after(async () => {
  await serve?.stop('SIGTERM');
});

async function admin<R extends AdminRoute>(
  _route: R,
  pathAndQuery: string,
  init: { method?: string; body?: string; token?: string } = {},
): Promise<{ status: number; body: AdminRoutes[R] & { error?: string } }> {
  const response = await fetch(`${serve.url}/__hookbench/${pathAndQuery}`, {
    method: init.method ?? 'GET',
    body: init.body,
    headers: { authorization: `Bearer ${init.token ?? TOKEN}` },
  });
  return { status: response.status, body: (await response.json()) as AdminRoutes[R] & { error?: string } };
}

async function send(method: string, pathAndQuery: string, body?: string | Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(`${serve.url}${pathAndQuery}`, { method, body, headers });
  assert.ok(response.status < 300, `${method} ${pathAndQuery} answered ${response.status}: ${await response.clone().text()}`);
  return response;
}

/** Reads `read` until `done` holds (the queue consumer and workflows run on their own time). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 200; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`${what}: never happened; last seen ${JSON.stringify(last)}`);
}

describe('GET /__hookbench/bindings', () => {
  it('lists every binding of the worker with its kind and what it reaches', async () => {
    const { status, body } = await admin('GET /__hookbench/bindings', 'bindings');
    assert.equal(status, 200);
    assert.deepEqual(body.bindings, [
      { kind: 'kv', name: 'CACHE', target: 'cache-ns' },
      { kind: 'd1', name: 'DB', target: 'orders-db' },
      { kind: 'r2', name: 'FILES', target: 'files' },
      { kind: 'queue', name: 'jobs', target: 'jobs' },
      { kind: 'queue', name: 'jobs-dlq', target: 'jobs-dlq' },
      { kind: 'workflow', name: 'order-flow', target: 'OrderFlow' },
      { kind: 'durableObject', name: 'REMINDERS', target: 'Reminder' },
    ]);
  });

  it('needs the admin token', async () => {
    assert.equal((await admin('GET /__hookbench/bindings', 'bindings', { token: 'wrong' })).status, 401);
    assert.equal((await admin('GET /__hookbench/bindings', 'bindings/kv/NOPE/keys')).status, 404);
    assert.equal((await admin('GET /__hookbench/bindings', 'bindings/secrets/CACHE/keys')).status, 404);
  });
});

describe('KV keys and values', () => {
  it('lists keys with metadata and expiration, by prefix, a page at a time by cursor', async () => {
    for (let i = 0; i < 5; i++) await send('PUT', `/kv?key=${encodeURIComponent(`user:${i}`)}${i === 0 ? '&ttl=3600' : ''}`, `value ${i}`);
    await send('PUT', '/kv?key=other', 'x');
    const first = await admin('GET /__hookbench/bindings/kv/<binding>/keys', 'bindings/kv/CACHE/keys?prefix=user:&limit=3');
    assert.equal(first.status, 200, first.body.error);
    assert.deepEqual(
      first.body.keys.map((k) => k.name),
      ['user:0', 'user:1', 'user:2'],
    );
    assert.deepEqual(first.body.keys[1]!.metadata, { from: 'test' });
    assert.ok(first.body.keys[0]!.expiration! > Date.now() / 1000 + 3000, 'the ttl shows as an expiration');
    assert.equal(first.body.keys[1]!.expiration, undefined);
    const second = await admin(
      'GET /__hookbench/bindings/kv/<binding>/keys',
      `bindings/kv/CACHE/keys?prefix=user:&limit=3&cursor=${encodeURIComponent(first.body.cursor!)}`,
    );
    assert.deepEqual(
      second.body.keys.map((k) => k.name),
      ['user:3', 'user:4'],
    );
    assert.equal(second.body.cursor, undefined, 'the last page has no cursor');
  });

  it('shows a value as text with its metadata and expiration', async () => {
    const { status, body } = await admin('GET /__hookbench/bindings/kv/<binding>/value', 'bindings/kv/CACHE/value?key=user%3A0');
    assert.equal(status, 200, body.error);
    assert.deepEqual(
      { ...body, expiration: typeof body.expiration },
      { key: 'user:0', encoding: 'text', value: 'value 0', size: 7, metadata: { from: 'test' }, expiration: 'number' },
    );
  });

  it('takes hostile keys as data, never as a path', async () => {
    const hostile = ['../../etc/passwd', '..%2F..', 'a/b/../../c', '\u0000nul', 'é/ü'];
    for (const key of hostile) await send('PUT', `/kv?key=${encodeURIComponent(key)}`, `for ${key}`);
    for (const key of hostile) {
      const { status, body } = await admin('GET /__hookbench/bindings/kv/<binding>/value', `bindings/kv/CACHE/value?key=${encodeURIComponent(key)}`);
      assert.equal(status, 200, `${key}: ${body.error}`);
      assert.equal(body.value, `for ${key}`);
    }
    const listed = await admin('GET /__hookbench/bindings/kv/<binding>/keys', 'bindings/kv/CACHE/keys?prefix=..');
    assert.deepEqual(
      listed.body.keys.map((k) => k.name),
      ['..%2F..', '../../etc/passwd'],
      'sorted by bytes, as KV lists',
    );
    // Nothing was written outside the data folder's binding store, and no file is named by a key.
    assert.equal(fs.existsSync(path.join(dataDir, '..', 'etc')), false);
    const dotdot = await admin('GET /__hookbench/bindings/kv/<binding>/value', 'bindings/kv/CACHE/value?key=..');
    assert.equal(dotdot.status, 400);
    assert.match(dotdot.body.error!, /Illegal key name "\.\."/);
  });

  it('answers 400 for a missing or over-long key, 404 for an absent one', async () => {
    assert.equal((await admin('GET /__hookbench/bindings/kv/<binding>/value', 'bindings/kv/CACHE/value')).status, 400);
    const long = await admin('GET /__hookbench/bindings/kv/<binding>/value', `bindings/kv/CACHE/value?key=${'k'.repeat(513)}`);
    assert.equal(long.status, 400);
    assert.match(long.body.error!, /longer than 512 bytes/);
    assert.equal((await admin('GET /__hookbench/bindings/kv/<binding>/value', 'bindings/kv/CACHE/value?key=absent')).status, 404);
    assert.equal((await admin('GET /__hookbench/bindings/kv/<binding>/keys', 'bindings/kv/CACHE/keys?limit=0')).status, 400);
    assert.equal((await admin('GET /__hookbench/bindings/kv/<binding>/keys', 'bindings/kv/CACHE/keys?limit=abc')).status, 400);
  });

  it('bounds a huge value and shows binary as base64', async () => {
    const huge = new Uint8Array(3 * 1024 * 1024).fill(0x61);
    await send('PUT', '/kv?key=huge', huge);
    const { body } = await admin('GET /__hookbench/bindings/kv/<binding>/value', 'bindings/kv/CACHE/value?key=huge');
    assert.equal(body.size, huge.byteLength);
    assert.equal(body.truncated, true);
    assert.equal(body.value.length, MAX_SHOWN_VALUE_BYTES);
    await send('PUT', '/kv?key=bin', new Uint8Array([0xff, 0xfe, 0x00, 0x01]));
    const bin = await admin('GET /__hookbench/bindings/kv/<binding>/value', 'bindings/kv/CACHE/value?key=bin');
    assert.deepEqual([bin.body.encoding, bin.body.value, bin.body.truncated], ['base64', Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('base64'), undefined]);
  });
});

describe('D1 tables and read-only queries', () => {
  it('lists the database’s tables and answers a read-only query', async () => {
    await send('POST', '/d1', JSON.stringify({ sql: 'CREATE TABLE orders (id TEXT PRIMARY KEY, total INTEGER NOT NULL)' }));
    await send('POST', '/d1', JSON.stringify({ sql: 'INSERT INTO orders VALUES (?, ?), (?, ?)', params: ['o-1', 10, 'o-2', 25] }));
    const tables = await admin('GET /__hookbench/bindings/d1/<binding>/tables', 'bindings/d1/DB/tables');
    assert.equal(tables.status, 200, tables.body.error);
    assert.deepEqual(tables.body.tables, [
      {
        name: 'orders',
        columns: [
          { name: 'id', type: 'TEXT', notNull: false, pk: 1 },
          { name: 'total', type: 'INTEGER', notNull: true, pk: 0 },
        ],
      },
    ]);
    const query = await admin('POST /__hookbench/bindings/d1/<binding>/query', 'bindings/d1/DB/query', {
      method: 'POST',
      body: JSON.stringify({ sql: 'SELECT id, total FROM orders WHERE total > ? ORDER BY id', params: [5] }),
    });
    assert.equal(query.status, 200, query.body.error);
    assert.deepEqual(query.body, {
      columns: ['id', 'total'],
      rows: [
        ['o-1', 10],
        ['o-2', 25],
      ],
    });
  });

  it('refuses a write and leaves the database as it was', async () => {
    const write = await admin('POST /__hookbench/bindings/d1/<binding>/query', 'bindings/d1/DB/query', {
      method: 'POST',
      body: JSON.stringify({ sql: 'DELETE FROM orders' }),
    });
    assert.equal(write.status, 400);
    assert.match(write.body.error!, /read-only/i);
    const count = await admin('POST /__hookbench/bindings/d1/<binding>/query', 'bindings/d1/DB/query', {
      method: 'POST',
      body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM orders' }),
    });
    assert.deepEqual(count.body.rows, [[2]]);
    assert.equal((await admin('POST /__hookbench/bindings/d1/<binding>/query', 'bindings/d1/DB/query', { method: 'POST', body: 'not json' })).status, 400);
    assert.equal((await admin('POST /__hookbench/bindings/d1/<binding>/query', 'bindings/d1/DB/query')).status, 405);
  });
});

describe('R2 objects', () => {
  it('lists objects with size, etag, upload time and metadata, by prefix and cursor, and heads one', async () => {
    const keys = ['reports/a.txt', 'reports/b.txt', 'reports/c.txt', '../escape.txt', 'img/x.png'];
    for (const key of keys) await send('PUT', `/r2?key=${encodeURIComponent(key)}`, `body of ${key}`, { 'content-type': 'text/plain' });
    const page = await admin('GET /__hookbench/bindings/r2/<binding>/objects', 'bindings/r2/FILES/objects?prefix=reports/&limit=2');
    assert.equal(page.status, 200, page.body.error);
    assert.deepEqual(
      page.body.objects.map((o) => [o.key, o.size]),
      [
        ['reports/a.txt', 21],
        ['reports/b.txt', 21],
      ],
    );
    const first = page.body.objects[0]!;
    assert.match(first.etag, /^[0-9a-f]{32}$/);
    assert.ok(Math.abs(Date.parse(first.uploaded) - Date.now()) < 60_000);
    assert.deepEqual([first.httpMetadata, first.customMetadata], [{ contentType: 'text/plain' }, { source: 'test' }]);
    const next = await admin('GET /__hookbench/bindings/r2/<binding>/objects', `bindings/r2/FILES/objects?prefix=reports/&limit=2&cursor=${page.body.cursor}`);
    assert.deepEqual(
      next.body.objects.map((o) => o.key),
      ['reports/c.txt'],
    );
    const head = await admin('GET /__hookbench/bindings/r2/<binding>/object', `bindings/r2/FILES/object?key=${encodeURIComponent('../escape.txt')}`);
    assert.equal(head.status, 200, head.body.error);
    assert.deepEqual([head.body.key, head.body.size, head.body.customMetadata], ['../escape.txt', 21, { source: 'test' }]);
    assert.equal(fs.existsSync(path.join(dataDir, '..', 'escape.txt')), false);
    assert.equal((await admin('GET /__hookbench/bindings/r2/<binding>/object', 'bindings/r2/FILES/object?key=missing')).status, 404);
    assert.equal((await admin('GET /__hookbench/bindings/r2/<binding>/object', `bindings/r2/FILES/object?key=${'k'.repeat(1025)}`)).status, 400);
  });
});

describe('queue backlog, retries and dead letters', () => {
  it('shows delayed, retried and dead-lettered messages, with each message’s retries', async () => {
    await send('POST', '/queue?delay=3600', JSON.stringify({ later: true }));
    await send('POST', '/queue', JSON.stringify({ retry: true }));
    await send('POST', '/queue', JSON.stringify({ dead: true }));
    await send('POST', '/queue', JSON.stringify({ fine: true }));
    const jobs = await until(
      () => admin('GET /__hookbench/bindings/queue/<queue>', 'bindings/queue/jobs'),
      ({ body }) => body.backlog === 2 && body.retried === 1 && body.deadLettered === 1,
      'the consumer to ack one, retry one and dead-letter one',
    );
    assert.equal(jobs.status, 200);
    assert.deepEqual(
      { ...jobs.body, messages: undefined },
      { queue: 'jobs', backlog: 2, delayed: 2, inFlight: 0, retried: 1, deadLetterQueue: 'jobs-dlq', deadLettered: 1, consumed: true, messages: undefined },
    );
    assert.deepEqual(
      jobs.body.messages.map((m) => [m.attempts, m.retries, m.contentType]),
      [
        [1, 0, 'v8'],
        [2, 1, 'v8'],
      ],
    );
    assert.ok(Date.parse(jobs.body.messages[0]!.visibleAt) > Date.now() + 3_000_000, 'the delayed one waits an hour');
    const dlq = await admin('GET /__hookbench/bindings/queue/<queue>', 'bindings/queue/jobs-dlq');
    assert.deepEqual([dlq.body.backlog, dlq.body.consumed, dlq.body.messages.length], [1, false, 1]);
    const paged = await admin('GET /__hookbench/bindings/queue/<queue>', 'bindings/queue/jobs?limit=1');
    assert.equal(paged.body.messages.length, 1);
    const rest = await admin('GET /__hookbench/bindings/queue/<queue>', `bindings/queue/jobs?limit=1&cursor=${paged.body.cursor}`);
    assert.deepEqual(
      rest.body.messages.map((m) => m.retries),
      [1],
    );
    assert.equal((await admin('GET /__hookbench/bindings/queue/<queue>', 'bindings/queue/nope')).status, 404);
    assert.equal((await admin('GET /__hookbench/bindings/queue/<queue>', 'bindings/queue/jobs?cursor=-1')).status, 400);
  });
});

describe('workflow instances and Durable Object alarms', () => {
  it('lists workflow instances with their status and steps', async () => {
    await send('POST', '/workflow?id=wf-1');
    const { body } = await until(
      () => admin('GET /__hookbench/bindings/workflow/<name>/instances', 'bindings/workflow/order-flow/instances'),
      // Parked on waitForEvent after its two steps: `running`, as Miniflare's status() says.
      ({ body }) => body.instances[0]?.status === 'running' && body.instances[0].steps.length === 2,
      'the workflow to wait for its event',
    );
    assert.deepEqual(body.instances, [
      {
        id: 'wf-1',
        status: 'running',
        steps: [
          { kind: 'do', name: 'validate', ok: true },
          { kind: 'do', name: 'charge', ok: true },
        ],
      },
    ]);
    assert.equal((await admin('GET /__hookbench/bindings/workflow/<name>/instances', 'bindings/workflow/nope/instances')).status, 404);
  });

  it('shows each instance’s pending alarm', async () => {
    const before = Date.now();
    await send('POST', '/alarm?name=r-1');
    await send('POST', '/alarm?name=r-2');
    const { status, body } = await admin('GET /__hookbench/bindings/durableObject/<namespace>/alarms', 'bindings/durableObject/REMINDERS/alarms?limit=1');
    assert.equal(status, 200, body.error);
    assert.equal(body.alarms[0]!.name, 'r-1');
    assert.ok(Date.parse(body.alarms[0]!.time) >= before + 3_599_000);
    assert.equal(body.cursor, 'r-1');
    const next = await admin('GET /__hookbench/bindings/durableObject/<namespace>/alarms', `bindings/durableObject/REMINDERS/alarms?cursor=${body.cursor}`);
    assert.deepEqual(
      next.body.alarms.map((a) => a.name),
      ['r-2'],
    );
  });
});
