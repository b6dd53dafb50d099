// Which frames go out compressed when a client agrees permessage-deflate: a real receiver and
// worker, and a raw TCP client that reads each frame's first byte (RSV1 is its 0x40 bit) before
// inflating the payload itself. Frames under 1 KiB go plain, larger ones compressed, both whole.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { nullLogger } from '../../../src/core/log';
import { WebSocketPair, WorkerResponse } from '../../../src/runtime/objects/webSocket';
import { WorkerRuntime } from '../../../src/runtime/worker/workerRuntime';
import { Receiver } from '../../../src/serve/http/receiver';
import { COMPRESS_FROM_BYTES } from '../../../src/serve/http/plainSmallFrames';
import { testPlatform } from '../helpers/platform';

/** A worker answering each text message "N" with N letters. */
const echoLength = {
  fetch(): Response {
    const pair = new WebSocketPair();
    pair[1].accept();
    pair[1].addEventListener('message', (event) => pair[1].send('a'.repeat(Number((event as MessageEvent).data))));
    return new WorkerResponse(null, { status: 101, webSocket: pair[0] });
  },
};

interface RawFrame {
  readonly compressed: boolean;
  readonly text: string;
}

/** A WebSocket client on a bare socket: offers permessage-deflate, sends masked text, reads frames. */
async function rawClient(port: number): Promise<{ ask(text: string): Promise<RawFrame>; extensions: string; close(): void }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const key = crypto.randomBytes(16).toString('base64');
  socket.write(
    `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n`,
  );
  let buffered = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake?.();
  });
  const more = () => new Promise<void>((resolve) => (wake = resolve));
  while (buffered.indexOf('\r\n\r\n') < 0) await more();
  const end = buffered.indexOf('\r\n\r\n');
  const head = buffered.subarray(0, end).toString('latin1');
  buffered = buffered.subarray(end + 4);
  assert.match(head, /^HTTP\/1\.1 101 /);
  const extensions = /sec-websocket-extensions: *(.*)/i.exec(head)?.[1] ?? '';
  // The deflate context carries over between messages (context takeover), as agreed.
  const inflater = zlib.createInflateRaw();
  const inflate = (payload: Buffer) =>
    new Promise<string>((resolve, reject) => {
      const out: Buffer[] = [];
      const onData = (data: Buffer) => out.push(data);
      inflater.on('data', onData);
      inflater.write(Buffer.concat([payload, Buffer.from([0x00, 0x00, 0xff, 0xff])]));
      inflater.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        inflater.off('data', onData);
        resolve(Buffer.concat(out).toString('utf8'));
      });
      inflater.once('error', reject);
    });
  const readFrame = async (): Promise<RawFrame> => {
    while (buffered.length < 2) await more();
    let length = buffered[1]! & 0x7f;
    let offset = 2;
    if (length === 126) {
      while (buffered.length < 4) await more();
      length = buffered.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) throw new Error('frame too large for this test');
    while (buffered.length < offset + length) await more();
    const first = buffered[0]!;
    const payload = buffered.subarray(offset, offset + length);
    buffered = buffered.subarray(offset + length);
    const compressed = (first & 0x40) !== 0;
    return { compressed, text: compressed ? await inflate(payload) : payload.toString('utf8') };
  };
  const ask = async (text: string): Promise<RawFrame> => {
    const payload = Buffer.from(text);
    const mask = crypto.randomBytes(4);
    const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
    socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]));
    return readFrame();
  };
  return { ask, extensions, close: () => socket.destroy() };
}

describe('receiver: WebSocket frames under permessage-deflate', () => {
  it(`sends frames under ${COMPRESS_FROM_BYTES} bytes plain and larger ones compressed, each whole and in order`, async () => {
    const platform = await testPlatform({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'hb-frames-')) });
    const runtime = new WorkerRuntime(platform, { exports: { default: echoLength }, env: {}, bindings: [], vars: {}, secrets: {} });
    const receiver = new Receiver({ host: '127.0.0.1', port: 0, runtime: async () => runtime, logger: nullLogger });
    const port = Number(new URL(await receiver.listen()).port);
    const client = await rawClient(port);
    try {
      assert.match(client.extensions, /^permessage-deflate/);
      const sizes = [139, COMPRESS_FROM_BYTES - 1, COMPRESS_FROM_BYTES, 5000, 20, 3000];
      const seen: string[] = [];
      for (const size of sizes) {
        const frame = await client.ask(String(size));
        assert.equal(frame.text, 'a'.repeat(size), `the ${size}-byte frame arrives whole`);
        seen.push(`${size} ${frame.compressed ? 'compressed' : 'plain'}`);
      }
      assert.deepEqual(seen, ['139 plain', '1023 plain', '1024 compressed', '5000 compressed', '20 plain', '3000 compressed']);
    } finally {
      client.close();
      await receiver.close();
      await runtime.shutdown();
    }
  });
});
