// The WebSockets an instance holds open, on a real wake of an object with hooks: an Agent's
// connection counted from its upgrade to its close, each frame and the close handed to the object
// as events, the host told when it is busy and when it may be idle; a connection the object cannot
// take closed with 1011; every one closed with 1012 at shutdown; an accept()ed socket counted until
// it closes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nullLogger } from '../../../../src/core/log';
import { InstanceConnections, UPGRADE, type ConnectionsHost } from '../../../../src/runtime/objects/connections';
import { HOSTED, type HostedHooks, type Socket } from '../../../../src/runtime/objects/hosted';
import { InstanceFolder } from '../../../../src/runtime/objects/instanceFolder';
import { LiveInstance } from '../../../../src/runtime/objects/liveInstance';
import { WebSocketPair } from '../../../../src/runtime/objects/webSocket';
import { ManualTimers } from '../../helpers/manualTimers';
import { testPlatform } from '../../helpers/platform';

/** An object that takes connections as an Agent does, through its hooks, and logs what they get. */
function agentLike(log: string[]): Record<string | symbol, unknown> {
  const hooks: HostedHooks = {
    start: async () => undefined,
    connect: async (_socket, request) => {
      log.push(`connect ${new URL(request.url).pathname}`);
      return {
        message: async (data) => void log.push(`message ${String(data)}`),
        close: async (code, reason, wasClean) => void log.push(`close ${code} ${reason} ${wasClean}`),
      };
    },
    runJobs: async () => undefined,
  };
  return { [HOSTED]: () => hooks };
}

/** A transport that records how it was closed; `closed` resolves at its first close. */
function transport(): Socket & { closes: [number | undefined, string | undefined][]; closed: Promise<void> } {
  const closes: [number | undefined, string | undefined][] = [];
  let onClose!: () => void;
  const closed = new Promise<void>((resolve) => (onClose = resolve));
  return {
    closes,
    closed,
    readyState: 1,
    send: () => undefined,
    close: (code, reason) => {
      closes.push([code, reason]);
      onClose();
    },
  };
}

async function connections(
  object: Record<string | symbol, unknown>,
): Promise<{ connections: InstanceConnections; told: string[]; errors: string[]; idle: () => Promise<void> }> {
  const timers = new ManualTimers();
  const folder = new InstanceFolder(await testPlatform({ timers }), 'one', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-connections-')));
  const { db, release } = await folder.open();
  const live = new LiveInstance(
    db,
    release,
    timers,
    () => undefined,
    () => undefined,
  );
  live.object = object;
  const told: string[] = [];
  const errors: string[] = [];
  let idled: () => void = () => undefined;
  const host: ConnectionsHost = {
    name: 'one',
    logger: { ...nullLogger, error: (line) => void errors.push(String(line)) },
    run: (fn, props) => live.settle(live.run(fn, props)),
    busy: () => void told.push('busy'),
    idle: () => {
      told.push('idle');
      idled();
    },
  };
  return { connections: new InstanceConnections(host), told, errors, idle: () => new Promise<void>((resolve) => (idled = resolve)) };
}

const upgradeRequest = (): Request => new Request('http://do/agents/room/one', { headers: { upgrade: 'websocket' } });

describe('instance connections', () => {
  it('holds an Agent’s connection open from its upgrade to its close, handing the object each frame', async () => {
    const log: string[] = [];
    const { connections: c, told, idle } = await connections(agentLike(log));
    const response = c.upgrade(upgradeRequest());
    const handlers = response[UPGRADE](transport());
    assert.equal(handlers.answersClose, true);
    assert.equal(c.count, 1);
    assert.deepEqual(told, ['busy']);
    handlers.message('hello');
    const idled = idle();
    handlers.close(1000, 'bye');
    assert.equal(c.count, 0, 'counted out at once');
    await idled;
    assert.deepEqual(log, ['connect /agents/room/one', 'message hello', 'close 1000 bye true']);
    assert.deepEqual(told, ['busy', 'idle']);
  });

  it('closes a connection the object cannot take with 1011, saying why in the log', async () => {
    const { connections: c, errors } = await connections({});
    const socket = transport();
    c.upgrade(upgradeRequest())[UPGRADE](socket);
    await socket.closed;
    assert.deepEqual(socket.closes, [[1011, 'Internal error']]);
    assert.deepEqual(errors, ['one: connect failed: WebSocket connections need an Agent']);
  });

  it('closes every open connection with 1012 at shutdown, so clients reconnect', async () => {
    const { connections: c } = await connections(agentLike([]));
    const sockets = [transport(), transport()];
    for (const socket of sockets) c.upgrade(upgradeRequest())[UPGRADE](socket);
    c.closeAll();
    assert.deepEqual(
      sockets.map((socket) => socket.closes),
      [[[1012, 'Service Restart']], [[1012, 'Service Restart']]],
    );
  });

  it('counts a socket the object accept()ed until it closes', async () => {
    const { connections: c, told, idle } = await connections({});
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    server.accept();
    client.accept();
    c.holdOpen(server);
    assert.equal(c.count, 1);
    const idled = idle();
    client.close(1000, 'done');
    await idled;
    assert.equal(c.count, 0);
    assert.deepEqual(told, ['idle']);
  });
});
