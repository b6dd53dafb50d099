// The outbound sink's bounds (docs/security.md, "Bounds"), against the built-in worker served on a
// real port with small limits: a body over the per-capture cap is refused before it is sent (its
// Content-Length) or as it is read (chunked), and the oldest captures make room for new ones
// within the total budget, the list and the live feed saying how many were dropped.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import type { LiveMessage } from '../../../src/core/contract/live';
import type { CaptureList } from '../../../src/core/contract/sink';
import { DurableDatabase } from '../../../src/runtime/storage/durableDatabase';
import { loadSqlJs } from '../../../src/runtime/storage/sqljs';
import { Sink } from '../../../src/serve/sink';
import { serveDefaultWorker, type Served } from '../helpers/serveWorker';

const TOKEN = 'sink-bounds-token';
const CAP = 64 * 1024;
const BUDGET = 256 * 1024;
let served: Served;
/** A serve of its own for each group: the cap's tests leave captures the budget's would count. */
function serveFresh(): void {
  before(async () => {
    served = await serveDefaultWorker({ adminToken: TOKEN, sinkLimits: { maxCaptureBytes: CAP, maxTotalBytes: BUDGET } });
  });
  after(() => served.stop());
}

async function list(path = 'sink'): Promise<CaptureList> {
  const response = await fetch(`${served.url}/__hookbench/${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.status, 200);
  return (await response.json()) as CaptureList;
}

async function capture(sink: string, body: Buffer): Promise<string> {
  const response = await fetch(`${served.url}/__hookbench/sink/${sink}`, { method: 'POST', body });
  const answer = (await response.json()) as { id: string; error?: string };
  assert.equal(response.status, 200, answer.error);
  return answer.id;
}

interface Answer {
  readonly status: number | undefined;
  readonly body: string;
  /** Whether the server told the client to go on and send the body. */
  readonly continued: boolean;
}

/** A POST that declares its size and waits for `100 Continue` before sending the body, as curl does for large bodies. */
function postExpectingContinue(path: string, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = http.request(`${served.url}${path}`, { method: 'POST', headers: { 'content-length': body.length, expect: '100-continue' } });
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => {
        resolve({ status: res.statusCode, body: text, continued });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

/** A POST without Content-Length: the body comes in chunks, its size unknown until read. */
function postChunked(path: string, body: Buffer): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${served.url}${path}`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the sink’s per-capture cap', () => {
  serveFresh();

  it('refuses a body that declares more than the cap with 413 and its reason, before the body is sent', async () => {
    const answer = await postExpectingContinue('/__hookbench/sink/declared', Buffer.alloc(CAP + 1, 'x'));
    assert.equal(answer.status, 413, answer.body);
    assert.equal(answer.continued, false, 'the client was never told to send the body');
    assert.equal(
      JSON.parse(answer.body).error,
      `the sink keeps captures of at most ${CAP} bytes (64 KiB): this body declares ${CAP + 1} bytes, so it was not captured`,
    );
    assert.deepEqual((await list('sink/declared')).captures, []);
  });

  it('takes a body of exactly the cap, sent after 100 Continue', async () => {
    const answer = await postExpectingContinue('/__hookbench/sink/exact', Buffer.alloc(CAP, 'x'));
    assert.deepEqual([answer.status, answer.continued], [200, true], answer.body);
    assert.equal(Buffer.from((await list('sink/exact')).captures[0]!.bodyBase64, 'base64').length, CAP);
  });

  it('refuses a chunked body once it grows past the cap, and records none of it', async () => {
    const answer = await postChunked('/__hookbench/sink/chunked', Buffer.alloc(4 * CAP, 'x'));
    assert.equal(answer.status, 413, answer.body);
    assert.match(JSON.parse(answer.body).error, /^the sink keeps captures of at most 65536 bytes \(64 KiB\): this body is larger, so it was not captured$/);
    assert.deepEqual((await list('sink/chunked')).captures, []);
    const deliveries = (await (await fetch(`${served.url}/__hookbench/deliveries`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      deliveries: { path: string; status: number; requestBytes: number }[];
    };
    const refused = deliveries.deliveries.find((d) => d.path === '/__hookbench/sink/chunked');
    assert.deepEqual(refused && [refused.status, refused.requestBytes], [413, 0], 'the deliveries log keeps the refusal, not the body');
  });
});

describe('the sink’s total budget', () => {
  serveFresh();
  // Each capture holds 60 KiB of body and about 100 bytes of headers: four fit in 256 KiB, five do not.
  const body = (n: number) => Buffer.alloc(60 * 1024, String(n % 10));

  it('keeps the newest captures within the budget, drops the oldest, and says how many, per sink and in all', async () => {
    const live = new WebSocket(`${served.url.replace('http', 'ws')}/__hookbench/live?token=${TOKEN}`);
    const outbound: Extract<LiveMessage, { type: 'outbound' }>[] = [];
    let wanted = 0;
    let arrived: () => void = () => undefined;
    live.on('message', (data) => {
      const message = JSON.parse(data.toString()) as LiveMessage;
      if (message.type === 'outbound') outbound.push(message);
      if (outbound.length >= wanted) arrived();
    });
    await new Promise((resolve) => live.once('message', resolve));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await capture('old', body(i)));
    for (let i = 3; i < 8; i++) ids.push(await capture('new', body(i)));
    wanted = 8;
    if (outbound.length < wanted) await new Promise<void>((resolve) => (arrived = resolve));
    live.close();

    const after = await list();
    assert.deepEqual(
      after.captures.map((c) => c.id),
      ids.slice(4).reverse(),
      'the newest four, newest first',
    );
    const held = after.captures.reduce((sum, c) => sum + Buffer.from(c.bodyBase64, 'base64').length + Buffer.byteLength(JSON.stringify(c.headers)), 0);
    assert.ok(held <= BUDGET, `${held} bytes held, over the ${BUDGET} budget`);
    assert.equal(after.dropped, 4);
    assert.deepEqual(await list('sink/old'), { captures: [], dropped: 3 });
    assert.equal((await list('sink/new')).dropped, 1);
    assert.equal(outbound.at(-1)!.dropped, after.dropped, 'the live feed carries the count with each capture');
  });

  it('keeps the budget and the count across a restart, dropping down to a smaller budget', async () => {
    const before = await list();
    const dataDir = served.dataDir;
    await served.stop();
    served = await serveDefaultWorker({ adminToken: TOKEN, dataDir, sinkLimits: { maxCaptureBytes: CAP, maxTotalBytes: 128 * 1024 } });
    const after = await list();
    assert.deepEqual(
      after.captures.map((c) => c.id),
      before.captures.slice(0, 2).map((c) => c.id),
      'the newest two fit 128 KiB',
    );
    assert.equal(after.dropped, before.dropped + before.captures.length - 2);
  });
});

describe('a sink an earlier version filled', () => {
  it('is trimmed to the budget when opened, and gives the freed space back to the disk and memory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-sink-'));
    const sql = await loadSqlJs();
    // The table as earlier versions made it: no byte counts, bounded only by a thousand captures.
    const old = await DurableDatabase.open({ sql, dir });
    old.exec(
      'CREATE TABLE IF NOT EXISTS captures (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, sink TEXT NOT NULL, time TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL, verification TEXT)',
    );
    for (let i = 0; i < 40; i++)
      old.exec('INSERT INTO captures (id, sink, time, headers, body, verification) VALUES (?, ?, ?, ?, ?, NULL)', [
        `old-${i}`,
        'chat',
        new Date(i).toISOString(),
        '{}',
        new Uint8Array(64 * 1024),
      ]);
    await old.close();
    assert.ok(fs.statSync(path.join(dir, 'db.snapshot')).size > 40 * 64 * 1024);

    const sink = await Sink.open(sql, dir, { maxCaptureBytes: CAP, maxTotalBytes: BUDGET });
    const { captures, dropped } = sink.list(undefined, 100);
    assert.deepEqual(
      captures.map((c) => c.id),
      ['old-39', 'old-38', 'old-37'],
      'the newest that fit 256 KiB with their headers',
    );
    assert.equal(dropped, 37);
    await sink.close();
    const size = fs.statSync(path.join(dir, 'db.snapshot')).size;
    assert.ok(size < 2 * BUDGET, `the database is ${size} bytes after the trim`);
  });
});
