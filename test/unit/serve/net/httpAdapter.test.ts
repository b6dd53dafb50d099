// The request a worker sees, as wrangler dev hands it over: the client's connection headers
// (Connection, Keep-Alive, TE) are gone, an upgrade keeps `Connection: Upgrade`, every other
// header stays as sent (public-templates' queues template logs them all).
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { nullLogger } from '../../../../src/core/log';
import type { WorkerRuntime } from '../../../../src/runtime/worker/workerRuntime';
import { toRequest } from '../../../../src/serve/net/httpAdapter';
import { Receiver } from '../../../../src/serve/http/receiver';
import { ManualTimers } from '../../helpers/manualTimers';

/** A worker that answers the headers it was given. */
const runtime = { fetch: async (request: Request) => Response.json(Object.fromEntries(request.headers)) } as unknown as WorkerRuntime;

let open: Receiver[] = [];
afterEach(async () => {
  await Promise.all(open.map((r) => r.close()));
  open = [];
});

async function port(): Promise<number> {
  const r = new Receiver({ host: '127.0.0.1', port: 0, runtime: async () => runtime, logger: nullLogger, timers: new ManualTimers() });
  open.push(r);
  return Number(new URL(await r.listen()).port);
}

/** Sends `lines` as a raw request head and answers the headers the worker saw. */
function headersSeen(to: number, lines: readonly string[]): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(to, '127.0.0.1');
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      // The answer is chunked: one chunk of JSON, then the last (empty) one.
      if (!text.endsWith('\r\n0\r\n\r\n')) return;
      socket.destroy();
      resolve(JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as Record<string, string>);
    });
    socket.on('error', reject);
  });
}

describe('the request a worker sees', () => {
  it('has no Connection, Keep-Alive or TE header, and keeps the others', async () => {
    const seen = await headersSeen(await port(), [
      'GET / HTTP/1.1',
      'Host: 127.0.0.1',
      'Connection: keep-alive',
      'Keep-Alive: timeout=5',
      'TE: trailers',
      'Proxy-Connection: x',
      'X-A: 1',
    ]);
    // CF-Connecting-IP and Accept-Encoding are added as wrangler dev presents them (incomingRequest.ts).
    assert.deepEqual(seen, { 'accept-encoding': 'br, gzip', 'cf-connecting-ip': '127.0.0.1', host: '127.0.0.1', 'proxy-connection': 'x', 'x-a': '1' });
  });

  it('keeps Connection on an upgrade', async () => {
    // The receiver hands upgrades to the worker through toRequest too: a plain server's upgrade.
    const server = http.createServer();
    const seen = new Promise<Headers>((resolve) =>
      server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
        resolve(toRequest(req, 'http://127.0.0.1/', undefined).headers);
        socket.destroy();
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nKeep-Alive: timeout=5\r\nUpgrade: websocket\r\n\r\n');
    const headers = await seen;
    server.close();
    assert.equal(headers.get('connection'), 'Upgrade');
    assert.equal(headers.get('upgrade'), 'websocket');
    assert.equal(headers.get('keep-alive'), null);
  });
});
