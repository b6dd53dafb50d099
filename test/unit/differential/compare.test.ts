import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { compareHttp, compareWebSocket, stalled, type HttpObservation, type WebSocketObservation } from '../../../test/differential/compare';
import { sendHttp } from '../../../test/differential/drive';

const ok = (over: Partial<HttpObservation> = {}): HttpObservation => ({
  kind: 'http',
  status: 200,
  headers: { 'content-type': 'text/plain' },
  body: 'hello',
  ...over,
});
const ws = (over: Partial<WebSocketObservation> = {}): WebSocketObservation => ({ kind: 'ws', status: 101, headers: {}, frames: ['a', 'b'], ...over });

/** A real server on port 0 answering every request with `answer`. */
async function serverAnswering(answer: (response: http.ServerResponse) => void): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => answer(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('differential comparer', () => {
  it('finds nothing between equal answers', () => {
    assert.deepEqual(compareHttp(ok(), ok(), { headers: ['content-type'] }), []);
  });

  it('reports a different status, a chosen header and the body', () => {
    const diffs = compareHttp(ok(), ok({ status: 404, headers: {}, body: 'hellO' }), { headers: ['content-type'] });
    assert.equal(diffs.length, 3);
    assert.match(diffs[0]!, /status: oracle 200 ≠ hookbench 404/);
    assert.match(diffs[1]!, /header content-type: oracle "text\/plain" ≠ hookbench "\(absent\)"/);
    assert.match(diffs[2]!, /body at 4/);
  });

  it('ignores headers it was not asked about and the body when told to', () => {
    assert.deepEqual(compareHttp(ok(), ok({ headers: { date: 'x' }, body: 'other' }), { body: 'ignore' }), []);
  });

  it('compares JSON bodies after normalizing both', () => {
    const drop = (body: unknown) => ({ ...(body as object), id: undefined });
    assert.deepEqual(compareHttp(ok({ body: '{"a":1,"id":"x"}' }), ok({ body: '{"id":"y", "a":1}' }), { body: 'json', normalize: drop }), []);
    assert.equal(compareHttp(ok({ body: '{"a":1}' }), ok({ body: '{"a":2}' }), { body: 'json' }).length, 1);
    assert.match(compareHttp(ok({ body: '{"a":1}' }), ok({ body: 'not json' }), { body: 'json' })[0]!, /not JSON in hookbench/);
  });

  it('names the path where two JSON bodies first differ', () => {
    const [diff] = compareHttp(ok({ body: '{"r":{"list":[{"k":1},{"k":2}],"z":0}}' }), ok({ body: '{"r":{"list":[{"k":1},{"k":3}],"z":0}}' }), {
      body: 'json',
    });
    assert.equal(diff, 'body at .r.list[1].k: oracle 2 ≠ hookbench 3');
    const [absent] = compareHttp(ok({ body: '{"a":1,"b":2}' }), ok({ body: '{"a":1}' }), { body: 'json' });
    assert.equal(absent, 'body at .b: oracle 2 ≠ hookbench (absent)');
  });

  it('counts a step that failed in either runtime, or both, as a difference', () => {
    assert.equal(compareHttp(ok(), { kind: 'failed', error: 'ECONNREFUSED' }).length, 1);
    assert.equal(compareHttp({ kind: 'failed', error: 'x' }, { kind: 'failed', error: 'x' }).length, 1);
  });

  it('compares WebSocket frames one by one, missing ones included, and the handshake headers asked for', () => {
    assert.deepEqual(compareWebSocket(ws(), ws()), []);
    const diffs = compareWebSocket(
      ws({ headers: { 'sec-websocket-extensions': 'permessage-deflate' } }),
      ws({ frames: ['a'], error: 'closed (1006) after 1 of 2 frames' }),
      { handshakeHeaders: ['sec-websocket-extensions'] },
    );
    assert.equal(diffs.length, 3);
    assert.match(diffs.join('\n'), /frame 1: oracle "b" ≠ hookbench "\(none\)"/);
  });

  it('compares a refused upgrade by its status and body', () => {
    assert.deepEqual(compareWebSocket(ws({ status: 403, frames: [], body: 'no' }), ws({ status: 403, frames: [], body: 'no' })), []);
    assert.match(compareWebSocket(ws({ status: 403, frames: [], body: 'no' }), ws())[0]!, /upgrade status: oracle 403 ≠ hookbench 101/);
  });

  it('fails a deliberately wrong runtime driven over real HTTP', async () => {
    const right = await serverAnswering((response) => response.writeHead(200, { 'access-control-allow-origin': '*' }).end('{"ok":true}'));
    const wrong = await serverAnswering((response) => response.writeHead(200).end('{"ok":false}'));
    try {
      const step = { name: 'cors', path: '/agents/a/b', headers: { origin: 'https://x.example' } };
      const [a, b] = await Promise.all([sendHttp(right.origin, step), sendHttp(wrong.origin, step)]);
      const diffs = compareHttp(a, b, { body: 'json', headers: ['access-control-allow-origin'] });
      assert.equal(diffs.length, 2, diffs.join('\n'));
      assert.deepEqual(compareHttp(a, a, { body: 'json', headers: ['access-control-allow-origin'] }), []);
    } finally {
      await Promise.all([right.close(), wrong.close()]);
    }
  });

  it('tells a runtime that answered nothing from one that answered differently', () => {
    const answered: HttpObservation = { kind: 'http', status: 503, headers: {}, body: 'Service Unavailable' };
    assert.equal(stalled({ kind: 'failed', error: 'no answer in 15000 ms' }), true);
    assert.equal(stalled({ kind: 'failed', error: 'Opening handshake has timed out' }), true);
    assert.equal(stalled([answered, { kind: 'failed', error: 'no answer in 15000 ms' }]), true);
    assert.equal(stalled(answered), false);
    assert.equal(stalled({ kind: 'failed', error: 'connect ECONNREFUSED 127.0.0.1:1' }), false);
    assert.equal(stalled({ kind: 'ws', status: 101, headers: {}, frames: [], error: '0 of 2 frames in 15000 ms' }), false);
  });
});
