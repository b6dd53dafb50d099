// The admin API's answers and live messages are read on arrival by the readers the contract
// declares beside their types (src/core/contract/shape.ts): a value of another shape is one line
// that says where and what, never a cast object that fails later.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_API } from '../../../../src/core/contract/admin';
import { formatLiveFrame, parseLiveFrame, type LiveMessage } from '../../../../src/core/contract/live';
import { ShapeError } from '../../../../src/core/contract/shape';

const summary = { namespace: 'WEBHOOK_AGENT', agent: 'webhook-agent', className: 'WebhookAgent', name: 'acme/widgets', awake: true, connections: 0 };
const delivery = {
  id: 'd-1',
  time: '2026-12-07T10:00:00.000Z',
  method: 'POST',
  path: '/webhooks/github',
  requestHeaders: { 'x-github-event': 'push' },
  requestTruncated: false,
  status: 200,
  responseHeaders: {},
  durationMs: 3.5,
  provider: 'github',
  entity: 'acme/widgets',
  verification: 'valid',
  requestBytes: 120,
};

function shapeError(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    assert.ok(error instanceof ShapeError, `a ShapeError, not ${String(error)}`);
    return error.message;
  }
  assert.fail('read a value of another shape');
}

describe("the admin API's answers, read on arrival", () => {
  it('gives back an answer of the declared shape as it came', () => {
    assert.deepEqual(ADMIN_API.instances.answer.read({ instances: [summary] }), { instances: [summary] });
    assert.deepEqual(ADMIN_API.deliveries.answer.read({ deliveries: [delivery] }), { deliveries: [delivery] });
    const blob = {
      columns: ['id', 'data'],
      rows: [
        ['a', { base64: 'AAE=' }],
        [null, 1.5],
      ],
      truncated: true,
    };
    assert.deepEqual(ADMIN_API.query.answer.read(blob), blob);
  });

  it('leaves behind fields the type does not declare, and absent optional ones absent', () => {
    const read = ADMIN_API.kvKeys.answer.read({ keys: [{ name: 'k', extra: 1 }], more: true });
    assert.deepEqual(read, { keys: [{ name: 'k' }] });
    assert.ok(!('cursor' in read) && !('expiration' in read.keys[0]!));
  });

  it("keeps a header a sender named __proto__ as a header, not the object's prototype", () => {
    const [read] = ADMIN_API.deliveries.answer.read(
      JSON.parse(`{"deliveries": [${JSON.stringify(delivery).replace('"requestHeaders":{', '"requestHeaders":{"__proto__":"x",')}]}`),
    ).deliveries;
    assert.ok(Object.hasOwn(read!.requestHeaders, '__proto__'));
    assert.equal(Object.getPrototypeOf(read!.requestHeaders), Object.prototype);
    assert.equal(read!.requestHeaders['__proto__'], 'x');
  });

  it('says where the answer is wrong and what it holds instead', () => {
    assert.equal(
      shapeError(() => ADMIN_API.instances.answer.read({ instances: [summary, { ...summary, awake: 'yes' }] })),
      'instances[1].awake: expected true or false, got "yes"',
    );
    assert.equal(
      shapeError(() => ADMIN_API.deliveries.answer.read({ deliveries: [{ ...delivery, source: { kind: 'tunnel' } }] })),
      'deliveries[0].source.kind: expected "send" or "replay" or "relay" or "public" or "retry", got "tunnel"',
    );
    assert.equal(
      shapeError(() => ADMIN_API.clearEvents.answer.read({})),
      'deleted: expected a whole number, got nothing',
    );
    assert.equal(
      shapeError(() => ADMIN_API.query.answer.read({ columns: ['a'], rows: [[true]] })),
      'rows[0][0]: expected a number, got true',
    );
    assert.equal(
      shapeError(() => ADMIN_API.bindings.answer.read([])),
      'the value: expected an object, got an array',
    );
    assert.match(
      shapeError(() => ADMIN_API.lockConfirm.answer.read({ pid: 1, answer: 'zz' })),
      /expected \{"pid": <whole number>, "answer": "<64 hex digits>"\}, got an object/,
    );
  });
});

describe("the live feed's messages, read on arrival", () => {
  const messages: LiveMessage[] = [
    { type: 'hello' },
    { type: 'delivery', delivery: { ...delivery, source: { kind: 'relay', name: 'smee' } } },
    { type: 'instance', kind: 'woken', namespace: 'WEBHOOK_AGENT', name: 'acme/widgets', instance: summary },
    { type: 'instance', kind: 'deleted', namespace: 'WEBHOOK_AGENT', name: 'acme/widgets' },
    { type: 'state', namespace: 'WEBHOOK_AGENT', name: 'acme/widgets', state: { stats: { total: 1 } } },
    { type: 'event', namespace: 'WEBHOOK_AGENT', name: 'acme/widgets', event: { id: 'e', type: 'push', action: null, title: 't', timestamp: 'now' } },
    { type: 'binding', kind: 'queue' },
    { type: 'outbound', capture: { id: 'c', sink: 's', time: 'now', headers: {}, body: '{}', verification: null }, dropped: 2 },
  ];

  it('reads back every message formatLiveFrame writes, alone or batched', () => {
    assert.deepEqual(parseLiveFrame(formatLiveFrame(messages)), messages);
    assert.deepEqual(
      messages.map((message) => parseLiveFrame(formatLiveFrame([message]))[0]),
      messages,
    );
  });

  it('names the message of a batch that is malformed, and what in it', () => {
    const frame = JSON.stringify([{ type: 'hello' }, { type: 'delivery', delivery: { ...delivery, status: '200' } }]);
    assert.equal(
      shapeError(() => parseLiveFrame(frame)),
      '[1].delivery.status: expected a whole number, got "200"',
    );
    assert.equal(
      shapeError(() => parseLiveFrame('{"type": "gossip"}')),
      'type: expected "hello" or "delivery" or "instance" or "state" or "event" or "binding" or "outbound", got "gossip"',
    );
    assert.equal(
      shapeError(() => parseLiveFrame('{"type": "instance", "kind": "woken", "namespace": "N", "name": "n"}')),
      'instance: expected an object, got nothing',
    );
  });
});
