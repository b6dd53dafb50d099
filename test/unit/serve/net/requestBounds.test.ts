// What a client may hold of the receiver: bytes in flight (the public behind a tunnel Host as one
// client), a body that stops arriving, and a refusal before the body of a non-webhook route is
// read. Raw sockets, so a body can stop short of its declared length.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { nullLogger } from '../../../../src/core/log';
import type { WorkerRuntime } from '../../../../src/runtime/worker/workerRuntime';
import { Receiver } from '../../../../src/serve/http/receiver';
import { Quota } from '../../../../src/serve/net/requestBounds';
import { ManualTimers } from '../../helpers/manualTimers';

const MiB = 1024 * 1024;
const TUNNEL_HOST = 'calm-river-1234.trycloudflare.com';

/** A worker that answers every request 200 after reading it. */
const runtime = { fetch: async (request: Request) => new Response(`read ${(await request.arrayBuffer()).byteLength}`) } as unknown as WorkerRuntime;

let open: Receiver[] = [];
afterEach(async () => {
  await Promise.all(open.map((r) => r.close()));
  open = [];
});

async function receiver(timers = new ManualTimers()): Promise<{ port: number; timers: ManualTimers }> {
  const r = new Receiver({ host: '127.0.0.1', port: 0, runtime: async () => runtime, logger: nullLogger, timers });
  open.push(r);
  const url = await r.listen();
  return { port: Number(new URL(url).port), timers };
}

/** A raw connection that sends `head` and then whatever the test writes; `answer` resolves with the first response's text. */
function connect(port: number, head: string): { socket: net.Socket; answer: Promise<string> } {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(head);
  let text = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) resolve(text);
    });
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
  return { socket, answer };
}

const post = (path: string, host: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('receiver bounds', () => {
  it(
    'answers 503 with Retry-After at once when the public (a tunnel Host) already holds its bytes in flight, before reading the body',
    { timeout: 10_000 },
    async () => {
      const { port } = await receiver();
      // Each declares 24 MiB and sends 1: the public as one client holds at most 32 MiB, so whichever
      // the receiver takes second is answered at once, and the other is still being read.
      const both = [
        connect(port, post('/webhooks/github/acme', TUNNEL_HOST, 24 * MiB) + '{'),
        connect(port, post('/webhooks/github/acme', TUNNEL_HOST, 24 * MiB) + '{'),
      ];
      const answer = await Promise.race(both.map((c) => c.answer));
      assert.match(answer, /^HTTP\/1\.1 503 /);
      assert.match(answer, /retry-after: 1/i);
      assert.match(answer, /too many request bytes in flight from the public/);
      for (const c of both) c.socket.destroy();
    },
  );

  it('answers 408 and closes a body that stops arriving, on the injected clock', { timeout: 10_000 }, async () => {
    const { port, timers } = await receiver();
    const slow = connect(port, post('/webhooks/github/acme', '127.0.0.1', 100) + '{"half":');
    let answered = false;
    void slow.answer.then(() => (answered = true));
    // The idle timer is re-armed by each chunk, which may reach the receiver after the clock moved:
    // move it 10 s at a time until the receiver gives up (and never before 10 s of silence).
    // Nothing is armed until the receiver has named the connection's peer and waits on the body.
    for (const started = Date.now(); timers.scheduled === 0 && Date.now() - started < 5_000;) await new Promise((resolve) => setImmediate(resolve));
    let advanced = 0;
    for (let i = 0; i < 50 && !answered; i++) {
      await timers.advance(10_000);
      advanced += 10_000;
    }
    const answer = await slow.answer;
    assert.ok(advanced >= 10_000);
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /no byte of the request body for 10 s/);
  });

  it('refuses a public Host on a non-webhook route without reading its body', { timeout: 10_000 }, async () => {
    const { port } = await receiver();
    const refused = connect(port, post('/agents/webhook-agent/acme', TUNNEL_HOST, 24 * MiB));
    const answer = await refused.answer;
    assert.match(answer, /^HTTP\/1\.1 403 /);
    assert.match(answer, /connection: close/i);
  });

  it('lets the owner send a full-size body while the public is at its bound', { timeout: 10_000 }, async () => {
    const { port } = await receiver();
    const held = connect(port, post('/webhooks/github/acme', TUNNEL_HOST, 24 * MiB) + '{');
    await new Promise((resolve) => held.socket.once('ready', resolve));
    const body = Buffer.alloc(20 * MiB, 0x20);
    const response = await fetch(`http://127.0.0.1:${port}/webhooks/github/acme`, { method: 'POST', body });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), `read ${body.length}`);
    held.socket.destroy();
  });
});

describe('Quota', () => {
  it('bounds each client but the owner, and everyone together', () => {
    const quota = new Quota(100, 30);
    assert.equal(quota.take('uid 65534', 30), true);
    assert.equal(quota.take('uid 65534', 1), false);
    assert.equal(quota.take('owner', 60), true);
    assert.equal(quota.take('owner', 11), false);
    quota.give('uid 65534', 30);
    assert.equal(quota.held('uid 65534'), 0);
    assert.equal(quota.take('owner', 11), true);
  });
});
