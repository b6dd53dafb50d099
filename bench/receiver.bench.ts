// The whole receiving path: `hookbench serve` with the built-in worker (signature check on the raw
// bytes, dedup, insert, retention, setState, journal fsync, deliveries log), fed signed 3.3 KB
// GitHub pushes with unique delivery ids over 100 entities on 32 keep-alive connections by a load
// generator on the same 2 cores, against a bare node:http server answering 200 without work, in
// the same run; and against the fetch-API floor (the same steps without the runtime), to show
// what the runtime itself costs. Then the latency from a POST to the state frame at a connected
// client.
// Issue targets: ≥ 5,000 requests/s, p99 ≤ 20 ms, ≥ 50 % of the bare server's rate.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { normalizeHeaders, schemeFor } from '../src/core/signing';
import { httpLoad, report, startBareServer, startFetchFloorServer, startServeProcess, type BenchResult } from './harness';
import { pushBody } from './pushes';

const SECRET = 'bench-github-secret';
const CONNECTIONS = 32;

function signedPush(n: number): { body: string; headers: Record<string, string> } {
  const body = pushBody(n % 100, n);
  const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
  return { body, headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': `bench-${process.pid}-${n}`, 'x-hub-signature-256': headers['X-Hub-Signature-256']! } };
}

async function stateFrameLatency(url: string): Promise<{ p50: number; p99: number }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/agents/webhook-agent/acme-repo-7`);
  const frames: number[] = [];
  let waiting: (() => void) | undefined;
  ws.on('message', () => {
    frames.push(performance.now());
    waiting?.();
  });
  await new Promise((r) => ws.once('open', r));
  while (frames.length < 3) await new Promise<void>((r) => (waiting = r));
  const samples: number[] = [];
  for (let i = 0; i < 300; i++) {
    const { body, headers } = signedPush(1_000_000 + i * 100 + 7);
    const seen = frames.length;
    const t = performance.now();
    const frame = new Promise<void>((r) => (waiting = () => frames.length > seen && r()));
    await fetch(`${url}/webhooks/github`, { method: 'POST', body, headers });
    await frame;
    samples.push(frames[seen]! - t);
  }
  ws.close();
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)]!, p99: samples[Math.floor(samples.length * 0.99)]! };
}

const push = (i: number) => ({ path: '/webhooks/github', ...signedPush(i) });

async function main(): Promise<void> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-recv-'));
  const serve = await startServeProcess(['--data', data], { GITHUB_WEBHOOK_SECRET: SECRET, HOOKBENCH_LOG_LEVEL: 'warn' });
  const warm = await httpLoad(serve.url, 3, push, { connections: CONNECTIONS });
  const measured = await httpLoad(serve.url, 10, push, { connections: CONNECTIONS, startAt: warm.next });
  const latency = await stateFrameLatency(serve.url);
  serve.stop();

  const bare = await startBareServer();
  await httpLoad(bare.url, 2, push, { connections: CONNECTIONS });
  const baseline = await httpLoad(bare.url, 10, push, { connections: CONNECTIONS });
  bare.close();

  const github = schemeFor('github');
  const verify = (body: Uint8Array, headers: Headers) => github.verify({ secret: SECRET, body, headers: normalizeHeaders(headers.entries()) }).valid;
  const floorLoad = async (clone: boolean) => {
    const server = await startFetchFloorServer(verify, { clone });
    await httpLoad(server.url, 2, push, { connections: CONNECTIONS });
    const result = await httpLoad(server.url, 10, push, { connections: CONNECTIONS });
    server.close();
    return result;
  };
  const floor = await floorLoad(true);
  const unclonedFloor = await floorLoad(false);

  const results: BenchResult[] = [
    {
      name: `signed GitHub pushes (3.3 KB, unique ids, 100 entities, c=32, durable) through hookbench serve — p50 ${measured.p50.toFixed(1)} ms, p99 ${measured.p99.toFixed(1)} ms, ${measured.errors} non-200`,
      unit: 'requests/s',
      value: measured.rate,
      baseline: `bare node:http answering 200 (p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms)`,
      baselineValue: baseline.rate,
      ratio: measured.rate / baseline.rate,
      target: 0.5,
    },
    {
      name: `the same load through node:http with the fetch-API steps of the seed's pattern and no runtime (Request, clone and parse in the router, verify and parse in the agent, Response; p50 ${floor.p50.toFixed(1)} ms, p99 ${floor.p99.toFixed(1)} ms, ${floor.errors} non-200)`,
      unit: 'requests/s',
      value: floor.rate,
      baseline: 'bare node:http answering 200',
      baselineValue: baseline.rate,
      ratio: floor.rate / baseline.rate,
    },
    {
      name: `the fetch-API floor with the clone: requests/s against the same steps reading the body once (p50 ${unclonedFloor.p50.toFixed(1)} ms)`,
      unit: 'requests/s',
      value: floor.rate,
      baseline: 'the same steps without request.clone() (requests/s)',
      baselineValue: unclonedFloor.rate,
      ratio: floor.rate / unclonedFloor.rate,
    },
    {
      name: 'POST → cf_agent_state frame at a connected client, p50 (ms)',
      unit: 'ms',
      value: latency.p50,
      baseline: 'p99 (ms)',
      baselineValue: latency.p99,
      ratio: latency.p50 / latency.p99,
    },
  ];
  report('receiver', results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
