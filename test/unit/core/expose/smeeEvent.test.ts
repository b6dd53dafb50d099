// A smee.io event made into the receiver's request: the route is fixed, the headers filtered,
// and the body's state (raw, changed, same length) told honestly.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forwardRequest, SmeeEventError } from '../../../../src/core/expose/smeeEvent';

const target = new URL('http://127.0.0.1:8787/webhooks/github');
const event = (fields: Record<string, unknown>) => JSON.stringify(fields);

describe('forwardRequest', () => {
  it('posts to the fixed route whatever the event carries: path, url, host or a Hookbench header', () => {
    const request = forwardRequest(
      event({
        host: 'smee.io',
        path: '/__hookbench/instances',
        url: 'http://127.0.0.1:8787/agents/webhook-agent/x',
        'hookbench-source': 'replay',
        'x-hookbench-provider': 'stripe',
        'x-github-event': 'push',
        body: { a: 1 },
        query: {},
      }),
      target,
    );
    assert.equal(request.url, 'http://127.0.0.1:8787/webhooks/github');
    assert.equal(request.headers['host'], undefined);
    assert.equal(request.headers['hookbench-source'], undefined);
    assert.equal(request.headers['x-hookbench-provider'], undefined);
    assert.equal(request.headers['path'], '/__hookbench/instances', 'an event field is a header at most');
    assert.equal(request.label, 'push');
  });

  it('appends the query (repeated keys as smee.io parses them) without touching the path', () => {
    const request = forwardRequest(event({ body: {}, query: { a: '1', b: ['2', '3'], '../x': 'y', n: 5 } }), target);
    const url = new URL(request.url);
    assert.equal(url.pathname, '/webhooks/github');
    assert.deepEqual(
      [...url.searchParams],
      [
        ['a', '1'],
        ['b', '2'],
        ['b', '3'],
        ['../x', 'y'],
      ],
    );
  });

  it('drops hop-by-hop and framing headers, and headers HTTP cannot carry', () => {
    const request = forwardRequest(
      event({
        'content-length': '9',
        connection: 'keep-alive',
        'transfer-encoding': 'chunked',
        'accept-encoding': 'gzip',
        'content-encoding': 'gzip',
        'bad name': 'x',
        'x-ok': 'yes',
        'x-newline': 'a\r\nb',
        'x-wide': '✓',
        'x-list': ['a', 'b'],
        'x-object': { a: 1 },
        body: {},
      }),
      target,
    );
    assert.deepEqual(request.headers, { 'x-ok': 'yes', 'x-list': 'a, b', 'content-type': 'application/json' });
  });

  it("keeps the provider's content type and signature headers as sent", () => {
    const request = forwardRequest(event({ 'content-type': 'application/json; charset=utf-8', 'x-hub-signature-256': 'sha256=ab', body: {} }), target);
    assert.equal(request.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(request.headers['x-hub-signature-256'], 'sha256=ab');
  });

  it('re-encodes the parsed body compactly: "same-length" when the original had as many bytes', () => {
    const original = '{"zen":"Keep it logically awesome.","hook_id":1}';
    const request = forwardRequest(event({ 'content-length': String(Buffer.byteLength(original)), body: JSON.parse(original) }), target);
    assert.equal(request.body.toString('utf8'), original);
    assert.equal(request.bodyState, 'same-length');
  });

  it('says "changed" when the re-encoding cannot be the original bytes (pretty JSON, escapes, 2.50)', () => {
    for (const original of ['{\n  "a": 1\n}', '{"url":"https:\\/\\/x"}', '{"name":"caf\\u00e9"}', '{"amount":2.50}']) {
      const request = forwardRequest(event({ 'content-length': String(Buffer.byteLength(original)), body: JSON.parse(original) }), target);
      assert.equal(request.bodyState, 'changed', original);
      assert.notEqual(request.body.toString('utf8'), original);
    }
    assert.equal(forwardRequest(event({ body: { a: 1 } }), target).bodyState, 'changed', 'no content-length: no claim that the bytes match');
  });

  it('forwards the original text where a relay still sends rawdata', () => {
    const raw = '{\n  "a": 1\n}';
    const request = forwardRequest(event({ 'content-length': String(raw.length), body: { a: 1 }, rawdata: raw }), target);
    assert.equal(request.body.toString('utf8'), raw);
    assert.equal(request.bodyState, 'raw');
  });

  it('refuses data that is not a JSON object', () => {
    for (const data of ['not json', '[1,2]', '"text"', 'null']) assert.throws(() => forwardRequest(data, target), SmeeEventError);
  });
});
