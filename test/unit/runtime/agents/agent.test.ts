// The compatibility suite: agents written against the real `agents` API (test/fixtures/workers/
// compat) served on the emulation, checked against the behaviour recorded from agents 0.32.0.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FrameClient, serveFixture, type Served } from '../../helpers/serveWorker';

let served: Served;
before(async () => {
  served = await serveFixture('compat', { secrets: { API_TOKEN: 'tok' } });
});
after(() => served.stop());

const get = async (path: string, init?: RequestInit) => {
  const response = await fetch(served.url + path, init);
  return { status: response.status, text: await response.text() };
};
const json = async (path: string, init?: RequestInit) => JSON.parse((await get(path, init)).text);

describe('routing (routeAgentRequest)', () => {
  it('routes /agents/<kebab binding>/<name> and passes subpaths and queries to onRequest', async () => {
    const info = await json('/agents/state-agent/route-1/info?x=1');
    assert.equal(info.name, 'route-1');
    assert.equal(info.query, '?x=1');
    assert.equal(info.current, true);
  });

  it('answers 400 Invalid request for an unknown namespace, PascalCase class names included', async () => {
    assert.deepEqual(await get('/agents/StateAgent/x'), { status: 400, text: 'Invalid request' });
    assert.deepEqual(await get('/agents/nope/x'), { status: 400, text: 'Invalid request' });
  });

  it('routes by the binding name, kebab-cased (HOOK_STORE_DO → hook-store-do), not the class', async () => {
    assert.equal((await json('/agents/hook-store-do/h1/info')).name, 'h1');
  });

  it('leaves a missing name to the worker (its own 404)', async () => {
    assert.deepEqual(await get('/agents/state-agent'), { status: 404, text: 'Not found' });
    assert.deepEqual(await get('/elsewhere'), { status: 404, text: 'Not found' });
  });

  it('does not URL-decode names', async () => {
    assert.equal((await json('/agents/state-agent/acme%2Fwidgets/info')).name, 'acme%2Fwidgets');
  });

  it('answers 404 Not implemented from the default onRequest', async () => {
    assert.deepEqual(await get('/agents/plain-agent/p1'), { status: 404, text: 'Not implemented' });
  });

  it('answers 500 with the stack when onRequest throws or rejects, and keeps serving', async () => {
    for (const action of ['throw', 'reject']) {
      const { status, text } = await get(`/agents/state-agent/err/${action}`);
      assert.equal(status, 500);
      assert.match(text, new RegExp(`Error: (thrown|rejected) from onRequest\\n\\s+at `));
    }
    const thrown = await get('/worker-throws');
    assert.equal(thrown.status, 500);
    assert.match(thrown.text, /thrown in the worker fetch/);
    assert.equal((await get('/agents/state-agent/err/info')).status, 200);
  });
});

describe('lifecycle and environment', () => {
  it('runs onStart once per wake, before the first request', async () => {
    await get('/agents/state-agent/life/info');
    const info = await json('/agents/state-agent/life/info');
    assert.equal(info.startCount, 1);
  });

  it('gives the agent its vars and secrets in env', async () => {
    const info = await json('/agents/state-agent/env/info');
    assert.equal(info.mode, 'test');
    assert.equal(info.token, 'tok');
  });

  it('getAgentByName returns a stub whose methods are called like DO RPC', async () => {
    assert.deepEqual(await json('/by-name/rpc-1'), { added: 2 });
    assert.deepEqual(await json('/by-name/rpc-1'), { added: 4 });
  });

  it('runs ctx.waitUntil work after the response', async () => {
    assert.equal((await get('/agents/state-agent/wu/wait-until')).text, 'later');
    const client = new FrameClient(`${served.url}/agents/state-agent/wu`);
    const frames = await client.waitForFrames(3);
    const deadline = Date.now() + 3000;
    while (!client.frames.some((f) => f.includes('1000')) && Date.now() < deadline) await client.waitForFrames(client.frames.length + 1).catch(() => undefined);
    assert.ok(
      frames.some((f) => f.includes('"count":1000')),
      JSON.stringify(frames),
    );
    await client.close();
  });
});

describe('state', () => {
  it('persists the initial state on first read, and setState from the server reaches every client', async () => {
    const a = new FrameClient(`${served.url}/agents/state-agent/s1`);
    const b = new FrameClient(`${served.url}/agents/state-agent/s1`);
    await a.waitForFrames(3);
    await b.waitForFrames(3);
    assert.deepEqual(await json('/agents/state-agent/s1/increment', { method: 'POST' }), { count: 1 });
    await a.waitForFrames(4);
    await b.waitForFrames(4);
    assert.equal(a.frames[3], '{"state":{"count":1},"type":"cf_agent_state"}');
    assert.equal(b.frames[3], a.frames[3]);
    await Promise.all([a.close(), b.close()]);
  });

  it('sends identity, state and MCP frames on connect, byte for byte', async () => {
    const client = new FrameClient(`${served.url}/agents/state-agent/frames`);
    const frames = await client.waitForFrames(3);
    assert.deepEqual(frames.slice(0, 3), [
      '{"type":"cf_agent_identity","name":"frames","agent":"state-agent","stateFollows":true}',
      '{"type":"cf_agent_state","state":{"count":0}}',
      '{"mcp":{"prompts":[],"resources":[],"servers":{},"tools":[]},"type":"cf_agent_mcp_servers"}',
    ]);
    await client.close();
  });

  it('omits stateFollows and the state frame when the agent has no state', async () => {
    const client = new FrameClient(`${served.url}/agents/plain-agent/plain-1`);
    const frames = await client.waitForFrames(2);
    assert.equal(frames[0], '{"type":"cf_agent_identity","name":"plain-1","agent":"plain-agent"}');
    assert.match(frames[1]!, /cf_agent_mcp_servers/);
    await client.close();
  });

  it('broadcasts a client state frame to the others but not to its sender, and tells onStateChanged', async () => {
    const sender = new FrameClient(`${served.url}/agents/state-agent/s2`);
    const other = new FrameClient(`${served.url}/agents/state-agent/s2`);
    await sender.waitForFrames(3);
    await other.waitForFrames(3);
    sender.send('{"type":"cf_agent_state","state":{"count":41}}');
    await other.waitForFrames(4);
    assert.equal(other.frames[3], '{"state":{"count":41},"type":"cf_agent_state"}');
    sender.send('{"type":"rpc","id":"r1","method":"nothing","args":[]}');
    await sender.waitForFrames(4);
    assert.equal(sender.frames[3], '{"done":true,"id":"r1","success":true,"type":"rpc"}', 'no state echo before the RPC reply');
    const info = await json('/agents/state-agent/s2/info');
    assert.deepEqual(info.changes, ['41:client']);
    await Promise.all([sender.close(), other.close()]);
  });

  it('refuses state from a readonly connection and a rejected validateStateChange, with state error frames', async () => {
    const readonly = new FrameClient(`${served.url}/agents/state-agent/s3?readonly`);
    await readonly.waitForFrames(3);
    readonly.send('{"type":"cf_agent_state","state":{"count":5}}');
    await readonly.waitForFrames(4);
    assert.equal(readonly.frames[3], '{"type":"cf_agent_state_error","error":"Connection is readonly"}');
    const writer = new FrameClient(`${served.url}/agents/state-agent/s3`);
    await writer.waitForFrames(3);
    writer.send('{"type":"cf_agent_state","state":{"count":-1}}');
    await writer.waitForFrames(4);
    assert.equal(writer.frames[3], '{"type":"cf_agent_state_error","error":"State update rejected"}');
    assert.equal((await json('/agents/state-agent/s3/info')).changes.length, 0);
    await Promise.all([readonly.close(), writer.close()]);
  });

  it('sends no protocol frames to a connection shouldSendProtocolMessages turns off', async () => {
    const quiet = new FrameClient(`${served.url}/agents/state-agent/s4?quiet`);
    await quiet.opened;
    await json('/agents/state-agent/s4/increment', { method: 'POST' });
    quiet.send('hello');
    await quiet.waitForFrames(1);
    assert.deepEqual(quiet.frames, ['onMessage:hello']);
    await quiet.close();
  });
});

describe('RPC frames', () => {
  it('answers results, undefined results, unknown and non-callable methods, and thrown non-Errors exactly', async () => {
    const client = new FrameClient(`${served.url}/agents/state-agent/rpc-frames`);
    await client.waitForFrames(3);
    const calls = [
      ['{"type":"rpc","id":"a","method":"add","args":[3]}', '{"done":true,"id":"a","result":3,"success":true,"type":"rpc"}'],
      ['{"type":"rpc","id":"b","method":"nothing","args":[]}', '{"done":true,"id":"b","success":true,"type":"rpc"}'],
      ['{"type":"rpc","id":"c","method":"nope","args":[]}', '{"error":"Method nope does not exist","id":"c","success":false,"type":"rpc"}'],
      ['{"type":"rpc","id":"d","method":"helper","args":[]}', '{"error":"Method helper is not callable","id":"d","success":false,"type":"rpc"}'],
      ['{"type":"rpc","id":"e","method":"setState","args":[{}]}', '{"error":"Method setState is not callable","id":"e","success":false,"type":"rpc"}'],
      ['{"type":"rpc","id":"f","method":"throwsString","args":[]}', '{"error":"Unknown error occurred","id":"f","success":false,"type":"rpc"}'],
    ];
    let expected = 3;
    for (const [call, reply] of calls) {
      client.send(call!);
      expected += call!.includes('"add"') ? 2 : 1; // add also broadcasts the new state to this client
      await client.waitForFrames(expected);
      assert.ok(client.frames.includes(reply!), `${reply} in ${JSON.stringify(client.frames)}`);
    }
    await client.close();
  });

  it('sends malformed RPC frames, unknown types, non-JSON and binary to onMessage', async () => {
    const client = new FrameClient(`${served.url}/agents/state-agent/rpc-other`);
    await client.waitForFrames(3);
    for (const frame of ['{"type":"rpc","id":1,"method":"add","args":[1]}', '{"type":"rpc","id":"x","method":"add"}', '{"type":"other"}', 'not json'])
      client.send(frame);
    client.send(Buffer.from([1, 2, 3]));
    await client.waitForFrames(8);
    assert.deepEqual(client.frames.slice(3), [
      'onMessage:{"type":"rpc","id":1,"method":"add","args":[1]}',
      'onMessage:{"type":"rpc","id":"x","method":"add"}',
      'onMessage:{"type":"other"}',
      'onMessage:not json',
      'onMessage:binary 3',
    ]);
    await client.close();
  });

  it('lists callable methods with their metadata', async () => {
    const client = new FrameClient(`${served.url}/agents/state-agent/rpc-meta`);
    await client.waitForFrames(3);
    client.send('{"type":"rpc","id":"m","method":"methods","args":[]}');
    await client.waitForFrames(4);
    const names = (JSON.parse(client.frames[3]!).result as [string, unknown][]).map(([n]) => n).sort();
    assert.deepEqual(names, ['add', 'methods', 'nothing', 'throwsString']);
    await client.close();
  });
});

describe('connections', () => {
  it('uses the _pk query parameter as the connection id, tags connections, and broadcasts with exclusions', async () => {
    const a = new FrameClient(`${served.url}/agents/state-agent/conn?_pk=alpha&tag=red`);
    const b = new FrameClient(`${served.url}/agents/state-agent/conn?_pk=beta&tag=blue`);
    await a.waitForFrames(3);
    await b.waitForFrames(3);
    assert.deepEqual(await json('/agents/state-agent/conn/tags?tag=red'), ['alpha']);
    assert.deepEqual((await json('/agents/state-agent/conn/tags')).sort(), ['alpha', 'beta']);
    await get('/agents/state-agent/conn/broadcast?without=alpha');
    await b.waitForFrames(4);
    assert.equal(b.frames[3], 'raw broadcast');
    assert.equal(a.frames.length, 3);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('storage', () => {
  it('sql errors are SqlError with the query', async () => {
    const result = await json('/agents/state-agent/sql/bad-sql');
    assert.deepEqual(
      { isSqlError: result.isSqlError, name: result.name, query: result.query },
      { isSqlError: true, name: 'SqlError', query: 'SELECT * FROM no_such_table WHERE id = ?' },
    );
    assert.match(result.message, /no such table: no_such_table/);
  });

  it('ctx.storage KV keeps structured-clone values, lists by prefix, deletes', async () => {
    assert.deepEqual(await json('/agents/state-agent/kv/kv'), { keys: ['p:a', 'p:b'], map: [['k', 'v']], isDate: true, deleted: true });
  });

  it('ctx.storage.sql.exec cursors give columnNames, raw rows, one() and rowsRead', async () => {
    assert.deepEqual(await json('/agents/state-agent/cursor/cursor'), {
      columns: ['a', 'b'],
      raw: [
        [1, 'x'],
        [2, 'y'],
      ],
      one: { answer: 42 },
      rowsRead: 2,
    });
  });
});

describe('queue and schedules', () => {
  const waitForRuns = async (name: string, predicate: (runs: string[]) => boolean, ms = 8000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const runs = (await json(`/agents/jobs-agent/${name}/runs`)) as string[];
      if (predicate(runs) || Date.now() > deadline) return runs;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('runs queued items one at a time in push order, retries failures, and drops after the last attempt', async () => {
    const ids = (await json('/agents/jobs-agent/q1/queue')) as string[];
    assert.equal(ids.length, 7);
    for (const id of ids) assert.match(id, /^[\w-]{9}$/);
    const runs = await waitForRuns('q1', (r) => r.filter((x) => x === 'always').length === 2);
    assert.deepEqual(runs, ['record 1', 'record 2', 'record 3', 'record 4', 'record 5', 'try 6', 'try 6', 'flaky ok 6', 'always', 'always']);
  });

  it('getQueue, getQueues, dequeue, dequeueAllByCallback and dequeueAll', async () => {
    const result = await json('/agents/jobs-agent/q2/queue-admin');
    assert.equal(result.item.callback, 'record');
    assert.deepEqual(result.item.payload, { n: 100 });
    assert.equal(typeof result.item.created_at, 'number');
    assert.equal(result.byN, 1);
    assert.equal(result.left, 1);
    assert.equal(result.after, null);
  });

  it('refuses to queue a method that does not exist', async () => {
    const { status, text } = await get('/agents/jobs-agent/q3/bad-callback');
    assert.equal(status, 400);
    assert.match(text, /nope is not a function/);
  });

  it('schedules by delay, date, cron and interval; lists, gets and cancels them; and runs them when due', async () => {
    const result = await json('/agents/jobs-agent/sch/schedule');
    assert.equal(result.delayed.type, 'delayed');
    assert.equal(result.delayed.delayInSeconds, 1);
    assert.equal(result.at.type, 'scheduled');
    assert.equal(result.cron.type, 'cron');
    assert.equal(result.cron.cron, '*/5 * * * *');
    assert.equal(result.cron.time % 300, 0);
    assert.equal(result.every.type, 'interval');
    assert.equal(result.every.intervalSeconds, 1);
    assert.equal(result.cancelled, true);
    assert.deepEqual(result.listed.sort(), ['cron', 'delayed', 'interval', 'scheduled']);
    assert.equal(result.crons, 1);
    assert.deepEqual(result.byId, result.delayed);
    const runs = await waitForRuns('sch', (r) => r.includes('record 201') && r.includes('record 202') && r.filter((x) => x === 'record 204').length >= 2);
    assert.ok(runs.includes('record 201') && runs.includes('record 202'), JSON.stringify(runs));
    assert.ok(runs.filter((x) => x === 'record 204').length >= 2, 'the interval schedule repeats');
    assert.ok(!runs.includes('record 205'), 'a cancelled schedule never runs');
    await get('/agents/jobs-agent/sch/cancel-every');
  });
});

describe('hostile names and damaged storage', () => {
  it('keeps every instance inside the data folder whatever its name', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const http = await import('node:http');
    // node:http sends the path as written: fetch's URL parser would already resolve "%2e%2e".
    const rawPost = (urlPath: string) =>
      new Promise<number>((resolve, reject) => {
        const request = http.request(served.url + urlPath, { method: 'POST' }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end();
      });
    for (const name of ['..%2F..%2Fescape', 'a%00b', encodeURIComponent('ü🚀'), 'x'.repeat(300), '.hidden', 'CON']) {
      assert.equal(await rawPost(`/agents/state-agent/${name}/increment`), 200, name);
    }
    // Dot segments are resolved by the URL parser (as in workerd) before routing: no instance "..".
    for (const name of ['..', '%2e%2e', '.%2E']) {
      assert.equal(await rawPost(`/agents/state-agent/${name}/increment`), 404, name);
    }
    assert.equal(fs.existsSync(path.join(served.dataDir, '..', 'escape')), false);
    const namespaceDir = path.join(served.dataDir, 'nstate-agent');
    for (const entry of fs.readdirSync(namespaceDir)) assert.match(entry, /^[a-z0-9_~-]+$/);
  });

  it('answers a request to an instance whose snapshot is damaged with a clear 500, and leaves the file alone', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const { encodeName } = await import('../../../../src/runtime/storage/names');
    const dir = path.join(served.dataDir, 'nstate-agent', encodeName('damaged'));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'db.snapshot'), 'HBSNAP01 this is not what was written');
    const { status, text } = await get('/agents/state-agent/damaged/info');
    assert.equal(status, 500);
    assert.match(text, /db\.snapshot: (snapshot checksum mismatch|not a Hookbench snapshot)/);
    assert.equal(fs.readFileSync(path.join(dir, 'db.snapshot'), 'utf8'), 'HBSNAP01 this is not what was written');
  });
});
