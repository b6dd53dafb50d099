// The read-write console's route (`POST …/execute`, docs/admin-api.md) against the built-in worker
// served on a real port with its data on disk: a statement is tried on a copy in the worker
// thread first, so one that runs long is stopped there while webhooks are answered, and one that
// would change what the runtime relies on is refused before it reaches the instance.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serveDefaultWorker, type Served } from '../helpers/serveWorker';
import { githubPush, SECRETS } from '../workers/payloads';

const TOKEN = 'execute-admin-token';
let served: Served;
before(async () => {
  served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN });
});
after(() => served.stop());

async function post(instance: string, route: 'query' | 'execute', sql: string, extra: Record<string, unknown> = {}) {
  const response = await fetch(`${served.url}/__hookbench/instances/webhook-agent/${instance}/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ sql, ...extra }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as any };
}

const webhook = async (entity: string, id: string) => {
  const { body, headers } = githubPush(`Acme/${entity}`, id);
  return fetch(`${served.url}/webhooks/github/${entity}`, { method: 'POST', body, headers });
};

const count = async (instance: string, table: string) => (await post(instance, 'query', `SELECT count(*) FROM ${table}`)).body.rows[0][0] as number;
const state = async (instance: string) => (await post(instance, 'query', 'SELECT id, state FROM cf_agents_state')).body.rows as unknown[][];

describe('the execute route', () => {
  // Some 20 million rows: seconds of work, which held every webhook when it ran on the main thread.
  const long = 'INSERT INTO notes (n) SELECT * FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 20000000) SELECT count(*) FROM c)';

  it('stops a statement at its time limit on a copy (408, nothing applied), and answers a webhook to the same instance while it runs', async () => {
    assert.equal((await webhook('exec-long', 'long-1')).status, 200);
    assert.equal((await post('exec-long', 'execute', 'CREATE TABLE notes (n INTEGER)')).status, 200);
    const answered: string[] = [];
    const stopped = post('exec-long', 'execute', long, { timeoutMs: 300 }).then((result) => {
      answered.push('execute');
      return result;
    });
    const delivered = webhook('exec-long', 'long-2').then((response) => {
      answered.push('webhook');
      return response;
    });
    const [result, response] = await Promise.all([stopped, delivered]);
    assert.equal(response.status, 200);
    assert.deepEqual(answered, ['webhook', 'execute'], 'the webhook was answered while the statement ran');
    assert.equal(result.status, 408, JSON.stringify(result.body));
    assert.match(result.body.error, /^statement stopped after 300 ms on a copy of the database, and not applied: /);
    assert.equal(await count('exec-long', 'notes'), 0, 'nothing was applied');
    assert.equal(await count('exec-long', 'events'), 2);
  });

  it('refuses writable_schema and writes to sqlite_master, and the instance answers its webhooks after a restart', async () => {
    assert.equal((await webhook('exec-schema', 'schema-1')).status, 200);
    const before = await state('exec-schema');
    for (const sql of [
      'PRAGMA writable_schema=ON',
      "UPDATE sqlite_master SET name = 'renamed', tbl_name = 'renamed', sql = replace(sql, 'cf_agents_state', 'renamed') WHERE name = 'cf_agents_state'",
      "UPDATE main.sqlite_schema SET sql = replace(sql, 'TEXT', 'BLOB') WHERE rootpage = (SELECT min(rootpage) FROM sqlite_schema WHERE type = 'table')",
    ]) {
      const refused = await post('exec-schema', 'execute', sql);
      assert.equal(refused.status, 400, sql);
      assert.match(refused.body.error, /^(writable_schema|sqlite_schema|sqlite_master) is refused: /, sql);
    }
    const dataDir = served.dataDir;
    await served.stop();
    served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN, dataDir });
    assert.equal((await webhook('exec-schema', 'schema-2')).status, 200, 'the reloaded instance still has its tables');
    assert.equal(await count('exec-schema', 'events'), 2);
    assert.notDeepEqual(await state('exec-schema'), [], 'and its state');
    assert.equal((await state('exec-schema'))[0]![0], before[0]![0]);
  });

  it('refuses writes to the runtime’s own tables however they are named, and applies the developer’s own', async () => {
    assert.equal((await webhook('exec-own', 'own-1')).status, 200);
    const before = await state('exec-own');
    for (const sql of [
      "UPDATE cf_agents_state SET state = '{}'",
      'DELETE FROM "CF_AGENTS_STATE"',
      'DELETE FROM [main].[cf_agents_state]',
      "DELETE FROM 'cf_agents_jobs'",
      'DROP TABLE main.`cf_agents_jobs`',
      'ALTER TABLE cf_agents_state RENAME TO kept_state',
      'CREATE TRIGGER wipe AFTER INSERT ON events BEGIN DELETE FROM cf_agents_state; END',
    ]) {
      const refused = await post('exec-own', 'execute', sql);
      assert.equal(refused.status, 400, sql);
      assert.match(refused.body.error, /is the runtime's own table: it cannot be changed from the console/, sql);
    }
    for (const sql of ['PRAGMA journal_mode = OFF', "ATTACH ':memory:' AS other", 'CREATE TEMP TABLE cf_shadow (x)']) {
      assert.equal((await post('exec-own', 'execute', sql)).status, 400, sql);
    }
    for (const sql of [
      'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT, seen INTEGER)',
      'CREATE INDEX notes_text ON notes (text)',
      'CREATE TRIGGER notes_seen AFTER INSERT ON notes BEGIN UPDATE notes SET seen = 1 WHERE id = new.id; END',
      "INSERT INTO notes (text) VALUES ('kept')",
      "UPDATE events SET title = 'edited'",
      'PRAGMA user_version = 3',
    ]) {
      const applied = await post('exec-own', 'execute', sql);
      assert.equal(applied.status, 200, `${sql}: ${JSON.stringify(applied.body)}`);
    }
    assert.deepEqual((await post('exec-own', 'query', 'SELECT text, seen FROM notes')).body.rows, [['kept', 1]]);
    assert.deepEqual((await post('exec-own', 'query', 'PRAGMA user_version')).body.rows, [[3]]);
    assert.deepEqual(await state('exec-own'), before, 'the runtime’s rows are as they were');
    assert.equal((await post('exec-own', 'execute', 'DROP TABLE notes')).status, 200);
  });
});
