// The whole receiving path: `hookbench serve` with the built-in worker (signature check on the raw
// bytes, dedup, insert, retention, setState, journal fsync, deliveries log), fed signed 3.3 KB
// GitHub pushes with unique delivery ids over 100 entities on 32 keep-alive connections. Every
// server runs in a process of its own and the load generator in another (bench/loadGenerator.ts),
// all on the same 2 cores; the servers are loaded in turn, round after round (the order
// alternating), and each ratio is the median of the same-round ratios:
//  - the fetch-API floor (bench/baselineServer.ts: the seed pattern's steps without the runtime,
//    storage and logging) — serve ÷ floor is the figure the issue sets (≥ 0.5, stretch 0.7);
//  - the same floor reading the body once (what the seed's clone costs);
//  - a bare node:http server answering 200 without work;
//  - the durable floor (bench/durableFloor.ts): the floor plus the same SQL and a journal fdatasync,
//    without Hookbench's runtime — what is left of serve's cost once storage is paid.
// Then the latency from a POST to the state frame at a connected client, against its floor: the
// same client's round trip to the floor server plus one fdatasync.
// HOOKBENCH_BENCH_QUICK=1: one short round.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { benchSeconds, interleavedLoad, pairedRatio, QUICK, report, startBaselineServer, startServeProcess, type BenchResult } from './harness';
import { BENCH_SECRET, signedPush } from './pushes';

const CONNECTIONS = 32;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** p50 of an append + fdatasync of a journal-sized record in `dir`, as a group commit does. */
function fdatasyncP50(dir: string, samples: number): number {
  const file = path.join(dir, 'fdatasync-probe');
  const fd = fs.openSync(file, 'a');
  const record = Buffer.alloc(3_600, 1);
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const t = performance.now();
      fs.writeSync(fd, record);
      fs.fdatasyncSync(fd);
      times.push(performance.now() - t);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file);
  }
  return median(times);
}

/**
 * POST → the `cf_agent_state` frame at a client connected to the entity's agent, one request at a
 * time. Interleaved with it, the same client's POST to the fetch-API floor server until its answer:
 * with an fdatasync (the output gate waits for one) that is the floor of this figure here.
 */
async function stateFrameLatency(
  url: string,
  floorUrl: string,
  dataDir: string,
  samplesWanted: number,
): Promise<{ p50: number; p99: number; floorRoundTrip: number; fdatasync: number }> {
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
  const floorTrips: number[] = [];
  for (let i = 0; i < samplesWanted; i++) {
    const toFloor = signedPush(2_000_000 + i * 100 + 7, `latency-${process.pid}`);
    const sent = performance.now();
    await (await fetch(`${floorUrl}/webhooks/github`, { method: 'POST', body: toFloor.body, headers: toFloor.headers })).arrayBuffer();
    floorTrips.push(performance.now() - sent);
    const { body, headers } = signedPush(1_000_000 + i * 100 + 7, `latency-${process.pid}`);
    const seen = frames.length;
    const t = performance.now();
    const frame = new Promise<void>((r) => (waiting = () => frames.length > seen && r()));
    await (await fetch(`${url}/webhooks/github`, { method: 'POST', body, headers })).arrayBuffer();
    await frame;
    samples.push(frames[seen]! - t);
  }
  ws.close();
  samples.sort((a, b) => a - b);
  return {
    p50: samples[Math.floor(samples.length / 2)]!,
    p99: samples[Math.floor(samples.length * 0.99)]!,
    floorRoundTrip: median(floorTrips),
    fdatasync: fdatasyncP50(dataDir, 200),
  };
}

async function main(): Promise<void> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-recv-'));
  const serve = await startServeProcess(['--data', data], { GITHUB_WEBHOOK_SECRET: BENCH_SECRET, HOOKBENCH_LOG_LEVEL: 'warn' });
  const floor = await startBaselineServer('floor');
  const once = await startBaselineServer('floor-once');
  const bare = await startBaselineServer('bare');
  const durable = await startBaselineServer('floor-durable');
  const rounds = QUICK ? 1 : 5;
  const seconds = benchSeconds(4, 3);
  const loads = await interleavedLoad(
    { serve: serve.url, floor: floor.url, once: once.url, bare: bare.url, durable: durable.url },
    { requests: 'github-push', entities: 100, connections: CONNECTIONS, warmSeconds: benchSeconds(2, 1), seconds },
    rounds,
  );
  const latency = await stateFrameLatency(serve.url, floor.url, data, QUICK ? 100 : 300);
  for (const server of [serve, floor, once, bare, durable]) server.stop();
  await serve.exited;

  const { serve: served, floor: floored, once: onced, bare: bared, durable: durabled } = loads as Record<string, (typeof loads)[string]>;
  const measured = served!;
  const plan = `${rounds} round${rounds > 1 ? 's' : ''} of ${seconds} s each; values are median rounds, ratios the median of same-round ratios`;
  const rates = (r: { rates: number[] }) => r.rates.map((x) => Math.round(x)).join('/');
  const results: BenchResult[] = [
    {
      name: `signed GitHub pushes (3.3 KB, unique ids, 100 entities, c=32, durable, deliveries log on) through hookbench serve, each server and the load generator in its own process, ${plan} — p50 ${measured.p50.toFixed(1)} ms, p99 ${measured.p99.toFixed(1)} ms, ${measured.errors} non-200; rounds ${rates(measured)} vs ${rates(floored!)}`,
      unit: 'requests/s',
      value: measured.rate,
      baseline: `the fetch-API floor of the seed's pattern without the runtime, own process (p50 ${floored!.p50.toFixed(1)} ms, p99 ${floored!.p99.toFixed(1)} ms)`,
      baselineValue: floored!.rate,
      ratio: pairedRatio(measured, floored!),
      target: 0.5,
    },
    {
      name: `hookbench serve against the durable floor: the floor plus the built-in worker's SQL on sql.js per entity and a journal append + fdatasync per group commit, without Hookbench's runtime, own process (p50 ${durabled!.p50.toFixed(1)} ms, p99 ${durabled!.p99.toFixed(1)} ms, ${durabled!.errors} non-200; rounds ${rates(durabled!)})`,
      unit: 'requests/s',
      value: measured.rate,
      baseline: 'the durable floor (requests/s)',
      baselineValue: durabled!.rate,
      ratio: pairedRatio(measured, durabled!),
    },
    {
      name: `hookbench serve against a bare node:http server answering 200, own process (bare p50 ${bared!.p50.toFixed(1)} ms, p99 ${bared!.p99.toFixed(1)} ms)`,
      unit: 'requests/s',
      value: measured.rate,
      baseline: 'bare node:http answering 200',
      baselineValue: bared!.rate,
      ratio: pairedRatio(measured, bared!),
    },
    {
      name: `the fetch-API floor (Request, clone and parse in the router, verify and parse in the agent, Response) against bare node:http, ${floored!.errors} non-200`,
      unit: 'requests/s',
      value: floored!.rate,
      baseline: 'bare node:http answering 200',
      baselineValue: bared!.rate,
      ratio: pairedRatio(floored!, bared!),
    },
    {
      name: `the fetch-API floor with the clone against the same steps reading the body once (p50 ${onced!.p50.toFixed(1)} ms)`,
      unit: 'requests/s',
      value: floored!.rate,
      baseline: 'the same steps without request.clone() (requests/s)',
      baselineValue: onced!.rate,
      ratio: pairedRatio(floored!, onced!),
    },
    {
      name: `POST → cf_agent_state frame at a connected client (one client, requests one at a time), p50 (ms); p99 ${latency.p99.toFixed(2)} ms; its floor here is the same client's POST answered by the fetch-API floor server (${latency.floorRoundTrip.toFixed(2)} ms) plus one append + fdatasync in the data folder (${latency.fdatasync.toFixed(2)} ms), measured in the same run`,
      unit: 'ms',
      value: latency.p50,
      baseline: "floor: the floor server's round trip + one fdatasync (ms)",
      baselineValue: latency.floorRoundTrip + latency.fdatasync,
      ratio: (latency.floorRoundTrip + latency.fdatasync) / latency.p50,
    },
  ];
  report('receiver', results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
