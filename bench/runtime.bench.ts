// The Agents SDK emulation, each figure against a baseline measured in the same run:
//  - overhead per request: runtime.fetch (routing, instance host, output gate, journal fsync)
//    against calling the same agent's onRequest directly, 32 requests in flight in both;
//  - journal group commit: records/s with 64 concurrent writers against a raw write+fdatasync loop;
//  - cold wake: first request to a never-used instance against a warm request to a woken one;
//  - HTTP: requests/s of `hookbench serve` for the counter worker (insert + setState per request),
//    32 keep-alive connections, against a bare node:http server answering 200.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { nullLogger } from '../src/core/log';
import { createPlatform } from '../src/runtime/platform';
import { JournalWriter } from '../src/runtime/storage/journal';
import { bundleWorker, evaluateWorker } from '../src/runtime/worker/loader';
import { loadSqlJs } from '../src/runtime/storage/sqljs';
import { WorkerRuntime } from '../src/runtime/worker/workerRuntime';
import { findWranglerConfig, readWranglerConfig } from '../src/core/workerConfig/wranglerConfig';
import { NEWEST } from '../src/core/workerConfig/compatibility';
import { benchSeconds, interleavedLoad, pairedRatio, QUICK, report, startBaselineServer, startServeProcess, type BenchResult } from './harness';

const root = path.resolve(__dirname, '..', '..');
const counterDir = path.join(root, 'test', 'fixtures', 'workers', 'counter');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-'));

async function runtimeFor(dataDir: string): Promise<WorkerRuntime> {
  const config = readWranglerConfig(findWranglerConfig(counterDir)!);
  const env: Record<string, unknown> = {};
  const process = WorkerRuntime.processOf(config.compatibility ?? NEWEST, config.vars, {});
  const bundle = await bundleWorker(esbuild, config.main!, { globals: WorkerRuntime.globalNames(), rules: config.rules ?? [] });
  const exports = await evaluateWorker(bundle, config.main!, WorkerRuntime.providedModules(env, process), WorkerRuntime.globals(process));
  const platform = createPlatform({ sql: await loadSqlJs(), logger: nullLogger, dataDir });
  return new WorkerRuntime(platform, { exports, env, bindings: config.durableObjects, vars: config.vars, secrets: {} });
}

/** Runs `task` `total` times with `concurrency` in flight; resolves with ops/s and latencies. */
async function load(total: number, concurrency: number, task: (i: number) => Promise<unknown>): Promise<{ rate: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await task(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { rate: total / seconds, p50: latencies[Math.floor(latencies.length * 0.5)]!, p99: latencies[Math.floor(latencies.length * 0.99)]! };
}

const post = (i: number) => new Request(`http://bench.local/agents/counter-agent/entity-${i % 100}`, { method: 'POST', body: `user-${i}` });

async function overhead(): Promise<BenchResult[]> {
  const runtime = await runtimeFor(tmp());
  const namespace = runtime.namespaces[0]!;
  // Wake all 100 instances first, so both sides measure warm requests.
  await load(200, 32, (i) => runtime.fetch(post(i)));
  const objects = await Promise.all(
    Array.from({ length: 100 }, (_, e) =>
      namespace
        .host(`entity-${e}`)
        .rpc('onStart', [])
        .then(() => namespace.host(`entity-${e}`)),
    ),
  );
  const direct = async (i: number) => {
    const host = objects[i % 100]!;
    // The same onRequest, called on the same live object, without routing, gate or commit.
    return (host as unknown as { live: Promise<{ object: { onRequest(r: Request): Promise<Response> } }> }).live.then(({ object }) =>
      object.onRequest(post(i)),
    );
  };
  const total = QUICK ? 4_000 : 20_000;
  const viaRuntime = await load(total, 32, (i) => runtime.fetch(post(i)));
  const directRun = await load(total, 32, direct);
  await runtime.shutdown();
  return [
    {
      name: 'counter agent POST through the runtime (routing, host, output gate, fsync), 100 entities, 32 in flight',
      unit: 'requests/s',
      value: viaRuntime.rate,
      baseline: 'the same onRequest called directly on the live object',
      baselineValue: directRun.rate,
      ratio: viaRuntime.rate / directRun.rate,
    },
  ];
}

async function groupCommit(): Promise<BenchResult[]> {
  const dir = tmp();
  const record = (seq: number) => ({
    seq,
    statements: [{ sql: 'INSERT INTO events (id, type, payload) VALUES (?, ?, ?)', params: [`evt_${seq}`, 'push', 'x'.repeat(200)] }],
  });
  const writer = new JournalWriter(path.join(dir, 'group.log'));
  let seq = 0;
  const grouped = await load(20_000, 64, async () => {
    writer.append(record(++seq));
    await writer.flush();
  });
  await writer.close();
  const fd = fs.openSync(path.join(dir, 'raw.log'), 'a');
  const { encodeRecord } = await import('../src/runtime/storage/journal');
  const raw = await load(4_000, 1, async (i) => {
    fs.writeSync(fd, encodeRecord(record(i)));
    fs.fdatasyncSync(fd);
  });
  fs.closeSync(fd);
  return [
    {
      name: 'journal group commit, 64 concurrent writers',
      unit: 'durable records/s',
      value: grouped.rate,
      baseline: 'raw append + fdatasync per record',
      baselineValue: raw.rate,
      ratio: grouped.rate / raw.rate,
    },
  ];
}

async function coldWake(): Promise<BenchResult[]> {
  const runtime = await runtimeFor(tmp());
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < 200; i++) {
    const request = () => new Request(`http://bench.local/agents/counter-agent/cold-${i}`, { method: 'POST', body: 'x' });
    let t = performance.now();
    await runtime.fetch(request());
    cold.push(performance.now() - t);
    t = performance.now();
    await runtime.fetch(request());
    warm.push(performance.now() - t);
  }
  await runtime.shutdown();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return [
    {
      name: 'cold wake: first request to a never-used instance (open database, onStart), p50',
      unit: 'ms',
      value: median(cold),
      baseline: 'warm request to the same instance, p50 (ms)',
      baselineValue: median(warm),
      // A time, not a rate: the ratio is how many warm requests one wake costs.
      ratio: median(cold) / median(warm),
    },
  ];
}

async function httpThroughput(): Promise<BenchResult[]> {
  const serve = await startServeProcess(['--worker', path.join(counterDir, 'src', 'index.ts'), '--data', tmp(), '--no-watch']);
  const bare = await startBaselineServer('bare');
  const loads = await interleavedLoad(
    { serve: serve.url, bare: bare.url },
    { requests: 'counter', entities: 100, connections: 32, warmSeconds: benchSeconds(2, 1), seconds: benchSeconds(4, 2) },
    QUICK ? 1 : 3,
  );
  serve.stop();
  bare.stop();
  const served = loads.serve!;
  const baseline = loads.bare!;
  return [
    {
      name: `hookbench serve, counter agent POST (insert + setState, durable), 100 entities, c=32 — p50 ${served.p50.toFixed(1)} ms, p99 ${served.p99.toFixed(1)} ms`,
      unit: 'requests/s',
      value: served.rate,
      baseline: `bare node:http answering 200 (p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms)`,
      baselineValue: baseline.rate,
      ratio: pairedRatio(served, baseline),
    },
    {
      name: 'hookbench serve against workerd (Miniflare) for the seed pattern on this machine kind (research note: ~890 requests/s)',
      unit: 'requests/s',
      value: served.rate,
      baseline: 'workerd, recorded in docs/agents-sdk.md (not re-measured)',
      baselineValue: 890,
      ratio: served.rate / 890,
      target: 10,
    },
  ];
}

async function main(): Promise<void> {
  const results = [...(await overhead()), ...(await groupCommit()), ...(await coldWake()), ...(await httpThroughput())];
  report('runtime', results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
