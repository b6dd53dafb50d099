// Hibernatable WebSockets through the real receiver and a real WebSocket client: the Durable
// Object accepts the server end with tags, the instance is evicted while the socket stays open,
// and the next frame wakes a new object whose `webSocketMessage` gets a WebSocket with the same
// tags and attachment; the auto-response answers without waking it; close reaches webSocketClose.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { nullLogger } from '../../../../src/core/log';
import { DurableObject, type DurableObjectState } from '../../../../src/runtime/objects/durableObject';
import { HibernatableSockets } from '../../../../src/runtime/objects/hibernation';
import { WebSocketPair, WebSocketRequestResponsePair, WorkerResponse, type WorkerWebSocket } from '../../../../src/runtime/objects/webSocket';
import { WorkerRuntime } from '../../../../src/runtime/worker/workerRuntime';
import { Receiver } from '../../../../src/serve/http/receiver';
import { EVENT_TIMEOUT_MESSAGE } from '../../../../src/runtime/objects/instanceHost';
import { ManualTimers } from '../../helpers/manualTimers';
import { testPlatform } from '../../helpers/platform';

const events: string[] = [];

/** Records webSocketError/webSocketClose; `slow` parks webSocketMessage past the event timeout. */
class Watcher extends DurableObject {
  readonly born = Date.now() + Math.random();

  async fetch(request: Request): Promise<Response> {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [new URL(request.url).searchParams.get('tag') ?? 'none']);
    const timeout = new URL(request.url).searchParams.get('timeout');
    if (timeout) this.ctx.setHibernatableWebSocketEventTimeout(Number(timeout));
    return new WorkerResponse(null, { status: 101, webSocket: pair[0] });
  }

  async webSocketMessage(ws: WorkerWebSocket, message: string | ArrayBuffer): Promise<void> {
    if (message === 'slow') {
      events.push('slow started');
      await new Promise(() => undefined);
    }
    ws.send(`${String(message)} ${this.born}`);
  }

  webSocketError(ws: WorkerWebSocket, error: Error): void {
    events.push(`error ${this.ctx.getTags(ws).join(',')} ${error instanceof Error} ${error.message}`);
  }

  webSocketClose(ws: WorkerWebSocket, code: number, reason: string, wasClean: boolean): void {
    events.push(`close ${this.ctx.getTags(ws).join(',')} ${code} ${reason} ${wasClean}`);
  }
}

/** `cls` as binding `name`, every request routed to its instance `instance`, served by a real receiver. */
async function serveObject(
  cls: new (ctx: DurableObjectState, env: unknown) => DurableObject,
  name: string,
  instance: string,
  timers?: ManualTimers,
): Promise<{ url: string; runtime: WorkerRuntime; stop(): Promise<void> }> {
  type Env = Record<string, { getByName(n: string): { fetch(r: Request): Promise<Response> } }>;
  const platform = await testPlatform({
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'hb-hibernate-')),
    logger: process.env.HB_DEBUG
      ? { ...nullLogger, error: (m: string) => console.log('ERR', m), warn: (m: string) => console.log('WARN', m), info: (m: string) => console.log('INFO', m) }
      : nullLogger,
    ...(timers ? { timers } : {}),
  });
  const runtime = new WorkerRuntime(platform, {
    exports: { [cls.name]: cls, default: { fetch: (request: Request, env: Env) => env[name]!.getByName(instance).fetch(request) } },
    env: {},
    bindings: [{ name, className: cls.name }],
    vars: {},
    secrets: {},
  });
  const receiver = new Receiver({ host: '127.0.0.1', port: 0, runtime: async () => runtime, logger: nullLogger });
  const url = (await receiver.listen()).replace('http', 'ws');
  return { url, runtime, stop: async () => (await receiver.close(), await runtime.shutdown()) };
}

const watcherServer = (timers?: ManualTimers) => serveObject(Watcher, 'W', 'w', timers);

/** Waits for what the server does on its own (a frame arriving, a handler starting); fails after 5 s. */
async function until(check: () => boolean): Promise<void> {
  for (const started = Date.now(); !check(); await new Promise((resolve) => setTimeout(resolve, 2))) {
    if (Date.now() - started > 5_000) throw new Error(`still waiting for ${check.toString()}`);
  }
}

async function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return socket;
}

const log = { constructed: 0, closes: [] as string[] };

class Room extends DurableObject {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    log.constructed++;
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'));
  }

  async fetch(request: Request): Promise<Response> {
    const pair = new WebSocketPair();
    const tag = new URL(request.url).searchParams.get('tag') ?? 'none';
    this.ctx.acceptWebSocket(pair[1], [tag, 'all']);
    pair[1].serializeAttachment({ joined: tag, messages: 0 });
    return new WorkerResponse(null, { status: 101, webSocket: pair[0] });
  }

  webSocketMessage(ws: WorkerWebSocket, message: string | ArrayBuffer): void {
    const attachment = ws.deserializeAttachment() as { joined: string; messages: number };
    attachment.messages++;
    ws.serializeAttachment(attachment);
    const stamp = this.ctx.getWebSocketAutoResponseTimestamp(ws);
    ws.send(
      JSON.stringify({
        got: message,
        tags: this.ctx.getTags(ws),
        attachment,
        room: this.ctx.getWebSockets('all').length,
        constructed: log.constructed,
        autoResponded: stamp !== null,
      }),
    );
  }

  webSocketClose(ws: WorkerWebSocket, code: number, reason: string, wasClean: boolean): void {
    log.closes.push(`${code} ${reason} ${wasClean} ${this.ctx.getTags(ws).join(',')}`);
  }
}

function frames(socket: WebSocket): () => Promise<string> {
  const queue: string[] = [];
  const waiting: ((frame: string) => void)[] = [];
  socket.on('message', (data) => {
    const frame = (data as Buffer).toString('utf8');
    const next = waiting.shift();
    if (next) next(frame);
    else queue.push(frame);
  });
  return () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiting.push(resolve)));
}

describe('hibernatable WebSockets', () => {
  it('keep tags and attachment across an eviction, wake on the next frame, auto-respond without waking', async () => {
    const { url, runtime, stop } = await serveObject(Room, 'ROOM', 'lobby');
    try {
      const socket = new WebSocket(`${url}/room?tag=alice`);
      const next = frames(socket);
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send('hello');
      assert.deepEqual(JSON.parse(await next()), {
        got: 'hello',
        tags: ['alice', 'all'],
        attachment: { joined: 'alice', messages: 1 },
        room: 1,
        constructed: 1,
        autoResponded: false,
      });

      const host = runtime.namespaces[0]!.existingHost('lobby')!;
      await host.evict();
      assert.equal(host.isAwake, false, 'an instance with only hibernatable sockets can be evicted');

      socket.send('ping');
      assert.equal(await next(), 'pong');
      assert.equal(host.isAwake, false, 'the auto-response does not wake the instance');

      socket.send('again');
      assert.deepEqual(JSON.parse(await next()), {
        got: 'again',
        tags: ['alice', 'all'],
        attachment: { joined: 'alice', messages: 2 },
        room: 1,
        constructed: 2,
        autoResponded: true,
      });

      socket.close(4000, 'bye');
      await new Promise((resolve) => socket.once('close', resolve));
      for (let i = 0; i < 50 && log.closes.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(log.closes, ['4000 bye true alice,all']);
    } finally {
      await stop();
    }
  });

  it("refuses more than 10 tags and a tag longer than 256 characters with workerd's messages", () => {
    const pair = new WebSocketPair();
    const sockets = new HibernatableSockets({ message() {}, close() {}, error() {} }, Date.now);
    assert.throws(
      () =>
        sockets.accept(
          pair[1],
          Array.from({ length: 11 }, (_, i) => `t${i}`),
        ),
      { message: 'a Hibernatable WebSocket cannot have more than 10 tags' },
    );
    assert.throws(() => sockets.accept(new WebSocketPair()[1], ['x'.repeat(257)]), {
      message: `"${'x'.repeat(257)}" is longer than the max tag length (256 characters).`,
    });
  });

  it("a protocol error reaches webSocketError (no webSocketClose); a dropped client is 1006 with workerd's reason", async () => {
    events.length = 0;
    const server = await watcherServer();
    try {
      const bad = await open(`${server.url}/?tag=bad`);
      // A frame with the reserved opcode 3, masked as a client must: ws on the server refuses it.
      (bad as unknown as { _socket: { write(b: Buffer): void } })._socket.write(Buffer.from([0x83, 0x80, 1, 2, 3, 4]));
      await until(() => events.length > 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(events, ['error bad true Invalid WebSocket frame: invalid opcode 3']);

      const dropper = await open(`${server.url}/?tag=drop`);
      dropper.terminate();
      await until(() => events.length > 1);
      assert.deepEqual(events.slice(1), ['close drop 1006 WebSocket disconnected without sending Close frame. false']);
    } finally {
      await server.stop();
    }
  });

  it('a handler outrunning setHibernatableWebSocketEventTimeout resets the object; the socket stays connected', async () => {
    events.length = 0;
    const timers = new ManualTimers();
    const server = await watcherServer(timers);
    try {
      const socket = await open(`${server.url}/?tag=t&timeout=500`);
      const next = frames(socket);
      socket.send('first');
      const [, born] = (await next()).split(' ');
      socket.send('slow');
      await until(() => events.includes('slow started'));
      await timers.advance(499);
      // Events interleave (no input gate is held across the slow handler's await): same object.
      socket.send('during');
      assert.equal(await next(), `during ${born}`);
      await timers.advance(1);
      // The object was reset: the next frame reaches a new object over the same connection.
      socket.send('after');
      const [word, bornAfter] = (await next()).split(' ');
      assert.equal(word, 'after');
      assert.notEqual(bornAfter, born, 'a new object after the timeout');
      assert.equal(EVENT_TIMEOUT_MESSAGE, 'Actor exceeded event execution time and was disconnected.');
      socket.close();
    } finally {
      await server.stop();
    }
  });
});
