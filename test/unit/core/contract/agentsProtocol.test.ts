// The agents protocol's client side, pinned against the SDK's own client: the frames the contract
// formats are the bytes AgentClient (agents 0.32.0, from npm) sends, and the frames the Agent sends
// read back as AgentClient reads them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket, { WebSocketServer } from 'ws';
import type * as AgentClientModule from 'agents/client';
import {
  broadcastStateFrame,
  connectStateFrame,
  identityFrame,
  isRefusedCall,
  mcpServersFrame,
  noSuchMethodError,
  notCallableError,
  parseClientFrame,
  parseServerFrame,
  rpcCallFrame,
  rpcErrorFrame,
  rpcResultFrame,
  stateErrorFrame,
  stateUpdateFrame,
} from '../../../../src/core/contract/agentsProtocol';

/** What AgentClient sends for one call and one setState, read by a bare WebSocket server on port 0. */
async function framesOfAgentClient(): Promise<string[]> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const frames: string[] = [];
  const received = new Promise<void>((resolve) => {
    server.on('connection', (socket) => {
      socket.send(identityFrame('room', 'test-agent', false));
      socket.on('message', (data) => {
        frames.push(data.toString());
        if (frames.length === 2) resolve();
      });
    });
  });
  const { AgentClient } = (await import('agents/client')) as typeof AgentClientModule;
  const { port } = server.address() as { port: number };
  const client = new AgentClient({ agent: 'test-agent', name: 'room', host: `127.0.0.1:${port}`, protocol: 'ws', WebSocket: WebSocket as never });
  try {
    await client.ready;
    client.call('add', [5, { by: 'bob' }]).catch(() => undefined);
    client.setState({ count: 1 });
    await received;
    return frames;
  } finally {
    client.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('the agents protocol, client side', () => {
  it('formats a call and a state update byte for byte as AgentClient sends them', async () => {
    const [call, state] = await framesOfAgentClient();
    const id = (JSON.parse(call!) as { id: string }).id;
    assert.equal(call, rpcCallFrame({ id, method: 'add', args: [5, { by: 'bob' }] }));
    assert.equal(state, stateUpdateFrame({ count: 1 }));
  });

  it('formats frames the Agent reads back as what was sent', () => {
    assert.deepEqual(parseClientFrame(rpcCallFrame({ id: 'c1', method: 'add', args: [1] })), { kind: 'rpc', call: { id: 'c1', method: 'add', args: [1] } });
    assert.deepEqual(parseClientFrame(stateUpdateFrame({ n: 2 })), { kind: 'state', state: { n: 2 } });
  });

  it('reads each frame the Agent sends as AgentClient does', () => {
    assert.deepEqual(parseServerFrame(identityFrame('room', 'test-agent', true)), { kind: 'identity', name: 'room', agent: 'test-agent', stateFollows: true });
    assert.deepEqual(parseServerFrame(identityFrame('room', 'test-agent', false)), {
      kind: 'identity',
      name: 'room',
      agent: 'test-agent',
      stateFollows: false,
    });
    assert.deepEqual(parseServerFrame(connectStateFrame({ n: 1 })), { kind: 'state', state: { n: 1 } });
    assert.deepEqual(parseServerFrame(broadcastStateFrame(null)), { kind: 'state', state: null });
    assert.deepEqual(parseServerFrame(stateErrorFrame('Connection is readonly')), { kind: 'stateError', error: 'Connection is readonly' });
    assert.deepEqual(parseServerFrame(mcpServersFrame()), { kind: 'mcpServers' });
  });

  it('reads RPC answers: results, streamed chunks, the final chunk and failures', () => {
    assert.deepEqual(parseServerFrame(rpcResultFrame('a', 3, true)), { kind: 'rpc', answer: { id: 'a', final: true, success: true, result: 3 } });
    assert.deepEqual(parseServerFrame(rpcResultFrame('a', { i: 1 }, false)), {
      kind: 'rpc',
      answer: { id: 'a', final: false, success: true, result: { i: 1 } },
    });
    assert.deepEqual(parseServerFrame(rpcResultFrame('a', undefined, true)), {
      kind: 'rpc',
      answer: { id: 'a', final: true, success: true, result: undefined },
    });
    assert.deepEqual(parseServerFrame(rpcErrorFrame('b', 'boom')), { kind: 'rpc', answer: { id: 'b', final: true, success: false, error: 'boom' } });
    // An answer without a `done` key ends the call, as AgentClient takes it.
    assert.deepEqual(parseServerFrame('{"id":"c","result":1,"success":true,"type":"rpc"}'), {
      kind: 'rpc',
      answer: { id: 'c', final: true, success: true, result: 1 },
    });
  });

  it('takes anything else as other: not JSON, not an object, an unknown type, an RPC answer without an id', () => {
    for (const text of ['not json', '42', 'null', '{"type":"cf_agent_session"}', '{"type":"rpc","success":true}'])
      assert.deepEqual(parseServerFrame(text), { kind: 'other' }, text);
  });

  it('tells a refused call (no such method, not callable) from an error the method threw', () => {
    assert.ok(isRefusedCall(noSuchMethodError('getEvents')));
    assert.ok(isRefusedCall(notCallableError('onRequest')));
    assert.ok(!isRefusedCall('Method getEvents failed: no such table: events'));
    assert.ok(!isRefusedCall('intentional failure'));
  });
});
