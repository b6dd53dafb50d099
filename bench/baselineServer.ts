// A baseline server in a process of its own, so that it gets a whole event loop as `hookbench
// serve` does and never shares one with the load generator:
//   node out/bench/baselineServer.js bare|floor|floor-once
// prints `listening on http://127.0.0.1:PORT` and serves until SIGTERM.
//  - bare: node:http answering 200 without work;
//  - floor: the floor under any receiver built on the fetch API here: node:http, the body read, a
//    `Request`, the seed's router (clone, parse the payload for the entity) and agent (read the
//    bytes again, verify the HMAC timing-safe, parse), a `Response` read back and written —
//    everything the built-in worker's path does except the runtime, storage and logging;
//  - floor-once: the same steps reading the body once instead of cloning, to show what the seed's
//    clone costs;
//  - floor-durable: the floor plus the storage of a durable receiver on sql.js, without Hookbench's
//    runtime (bench/durableFloor.ts).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { listeningLine } from '../src/core/contract/serveHandshake';
import { normalizeHeaders, schemeFor } from '../src/core/signing';
import { DurableFloorStore } from './durableFloor';
import { BENCH_SECRET } from './pushes';

const github = schemeFor('github');
const verify = (body: Uint8Array, headers: Headers) => github.verify({ secret: BENCH_SECRET, body, headers: normalizeHeaders(headers.entries()) }).valid;

function bare(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume();
  req.on('end', () => res.end('OK'));
}

async function floor(req: http.IncomingMessage, res: http.ServerResponse, clone: boolean, store?: DurableFloorStore): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
  let body: Uint8Array;
  if (clone) {
    JSON.parse(Buffer.from(await request.clone().arrayBuffer()).toString('utf8'));
    body = new Uint8Array(await request.arrayBuffer());
  } else {
    body = new Uint8Array(await request.arrayBuffer());
    JSON.parse(Buffer.from(body).toString('utf8'));
  }
  const ok = verify(body, request.headers);
  const text = Buffer.from(body).toString('utf8');
  const payload = JSON.parse(text) as { repository: { full_name: string }; head_commit: { message: string } };
  if (ok && store) {
    const entity = store.entity(payload.repository.full_name);
    const id = request.headers.get('x-github-delivery') ?? '';
    entity.store({
      id,
      type: request.headers.get('x-github-event') ?? 'unknown',
      title: payload.head_commit.message,
      payload: text,
      timestamp: new Date().toISOString(),
    });
    await entity.durable();
  }
  const response = new Response(ok ? 'OK' : 'Invalid signature', { status: ok ? 200 : 401, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
  const bytes = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { 'content-type': 'text/plain;charset=UTF-8' });
  res.end(bytes);
}

async function main(kind: string | undefined): Promise<void> {
  const store = kind === 'floor-durable' ? await DurableFloorStore.open() : undefined;
  const handlers: Record<string, http.RequestListener> = {
    bare,
    floor: (req, res) => void floor(req, res, true),
    'floor-once': (req, res) => void floor(req, res, false),
    'floor-durable': (req, res) => void floor(req, res, true, store),
  };
  const handler = handlers[kind ?? ''];
  if (!handler) {
    console.error(`usage: baselineServer.js ${Object.keys(handlers).join('|')}`);
    process.exit(2);
  }
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${listeningLine(`http://127.0.0.1:${port}`)}\n`);
  });
  process.on('SIGTERM', () =>
    server.close(() => {
      store?.remove();
      process.exit(0);
    }),
  );
}

void main(process.argv[2]);
