// Memory of `hookbench serve` started as a user starts it (dist/cli.js from a shell, without the
// extension's SERVE_PROCESS_ENV), over 1,000 entities (docs/performance.md, "Memory"):
// 1. signed pushes at full rate (c=32) for LOAD_S with the default memory budget, RSS of serve's
//    processes read from /proc every second; then idle, RSS read until IDLE_S have passed.
//    Targets (issue 29): peak ≤ 500 MiB, ≤ 250 MiB within 2 min of idle.
// 2. uniform load's throughput against the budget: servers with a few budgets and one without,
//    loaded in interleaved rounds; each budget's rate ÷ the rate without one.
// 3. skewed load (90 % of pushes to 10 hot entities, the rest over the tail): the default budget's
//    rate ÷ the rate without a budget, round by round (target ≥ 0.8).
// 4. where the time goes when an instance wakes, in-process on a copy of an instance's folder.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchSeconds, interleavedLoad, loadFromProcess, pairedRatio, QUICK, report, startServeAsUser, type BenchResult, type ServerProcess } from './harness';
import { BENCH_SECRET, signedPush } from './pushes';
import { DEFAULT_MEMORY_BUDGET_MIB } from '../src/core/contract/serveEnvironment';
import { DurableDatabase } from '../src/runtime/storage/durableDatabase';
import { loadSqlJs, separateSqlJsLoader } from '../src/runtime/storage/sqljs';

const ENTITIES = 1000;
const LOAD_S = benchSeconds(120, 20);
const IDLE_S = benchSeconds(120, 40);
/** Quick runs evict after 10 s instead of serve's default 60 s, to see the idle figure sooner. */
const IDLE_FLAGS = QUICK ? ['--idle-ms', '10000'] : [];
const CURVE_S = benchSeconds(10, 4);
/**
 * The skewed load's tail is touched in turn, each of its 990 entities once every 9,900 pushes (bench/
 * loadGenerator.ts): rounds long enough to go round it twice or more at this machine's rate.
 */
const SKEWED_S = benchSeconds(20, 6);
const SKEWED_WARM_S = benchSeconds(5, 1);
const CURVE_BUDGETS = [64, 128, DEFAULT_MEMORY_BUDGET_MIB, 512];
const SERVE_ENV = { GITHUB_WEBHOOK_SECRET: BENCH_SECRET, HOOKBENCH_LOG_LEVEL: 'warn' };

/** RSS of `pid` and its children (on a Node without `process.execve`, serve runs under a relaying parent, src/serveAllocator.ts). */
function treeRssMiB(pid: number): number {
  let kib = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid)
        kib += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone while listing
    }
  }
  return Math.round(kib / 1024);
}

const dataDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-mem-'));

async function stopAll(servers: ServerProcess[]): Promise<void> {
  for (const server of servers) server.stop();
  await Promise.all(servers.map((server) => server.exited));
}

/** Part 1: the default budget under full load, then idle. */
async function peakAndIdle(): Promise<{ results: BenchResult[]; data: string }> {
  const data = dataDir();
  const serve = await startServeAsUser(['--data', data, '--no-render', ...IDLE_FLAGS], SERVE_ENV);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssMiB(serve.pid))), 1_000);
  const load = await loadFromProcess({
    url: serve.url,
    requests: 'github-push',
    entities: ENTITIES,
    connections: 32,
    warmSeconds: 0,
    seconds: LOAD_S,
    startAt: 0,
  });
  peak = Math.max(peak, treeRssMiB(serve.pid));
  const stoppedAt = performance.now();
  while (performance.now() - stoppedAt < IDLE_S * 1000) await new Promise((resolve) => setTimeout(resolve, 1_000));
  clearInterval(sampler);
  const idle = treeRssMiB(serve.pid);
  // Asleep now (evicted when idle): the first push to each wakes it, the second finds it awake.
  const asleepMs = await pushLatency(serve.url, 0);
  const awakeMs = await pushLatency(serve.url, 1);
  await stopAll([serve]);
  const plan = `${ENTITIES} entities at c=32 for ${LOAD_S} s, ${load.next} pushes at ${Math.round(load.rate)}/s, ${load.errors} errors, --memory-budget ${DEFAULT_MEMORY_BUDGET_MIB} (the default), serve started from a shell`;
  return {
    data,
    results: [
      {
        name: `peak RSS of hookbench serve under load: ${plan}`,
        unit: 'MiB',
        value: peak,
        baseline: 'target (MiB)',
        baselineValue: 500,
        ratio: 500 / peak,
        target: 1,
      },
      {
        name: `RSS ${IDLE_S} s after the load stopped (--idle-ms ${QUICK ? 10_000 : 60_000})`,
        unit: 'MiB',
        value: idle,
        baseline: 'target (MiB)',
        baselineValue: 250,
        ratio: 250 / idle,
        target: 1,
      },
      {
        name: `a push to an instance asleep (woken by it; mean of ${WAKES}, one at a time)`,
        unit: 'ms',
        value: asleepMs,
        baseline: 'the same push once awake (ms)',
        baselineValue: awakeMs,
        ratio: awakeMs / asleepMs,
      },
    ],
  };
}

const WAKES = 20;

/** Mean latency of one signed push to each of WAKES entities in turn (`round` keeps delivery ids apart). */
async function pushLatency(url: string, round: number): Promise<number> {
  let total = 0;
  for (let entity = 0; entity < WAKES; entity++) {
    const { body, headers } = signedPush(10_000_000 + round * WAKES + entity, 'wake', ENTITIES, entity * 37);
    const t = performance.now();
    const response = await fetch(`${url}/webhooks/github`, { method: 'POST', body, headers });
    await response.arrayBuffer();
    total += performance.now() - t;
  }
  return total / WAKES;
}

/**
 * Instances idle this long are evicted in the rate comparisons (serve's default is 60 s): long
 * enough that none is evicted for being idle while the other servers take their rounds (up to a
 * minute or two), which would put the no-budget server's instances to sleep too and make every
 * server wake its instances again at each round — the budget's effect is what is measured.
 */
const COMPARISON_IDLE_MS = 600_000;

/** Servers with each budget (0: none), started from a shell. */
async function serversWith(budgets: number[]): Promise<{ urls: Record<string, string>; all: ServerProcess[] }> {
  const all: ServerProcess[] = [];
  const urls: Record<string, string> = {};
  for (const budget of budgets) {
    const serve = await startServeAsUser(
      ['--data', dataDir(), '--no-render', '--idle-ms', String(COMPARISON_IDLE_MS), '--memory-budget', String(budget)],
      SERVE_ENV,
    );
    all.push(serve);
    urls[String(budget)] = serve.url;
  }
  return { urls, all };
}

/** Part 2: uniform load's rate against the budget, each ÷ no budget in the same rounds. */
async function uniformCurve(): Promise<BenchResult[]> {
  const { urls, all } = await serversWith([0, ...CURVE_BUDGETS]);
  try {
    const byServer = await interleavedLoad(urls, { requests: 'github-push', entities: ENTITIES, connections: 32, warmSeconds: 1, seconds: CURVE_S }, 3);
    const none = byServer['0']!;
    return CURVE_BUDGETS.map((budget) => {
      const run = byServer[String(budget)]!;
      return {
        name: `uniform load over ${ENTITIES} entities, --memory-budget ${budget} (${run.errors} errors)`,
        unit: 'req/s',
        value: run.rate,
        baseline: 'no budget (req/s)',
        baselineValue: none.rate,
        ratio: pairedRatio(run, none),
      };
    });
  } finally {
    await stopAll(all);
  }
}

/** Part 3: skewed load with the default budget ÷ without one. */
async function skewed(): Promise<BenchResult> {
  const { urls, all } = await serversWith([0, DEFAULT_MEMORY_BUDGET_MIB]);
  try {
    const byServer = await interleavedLoad(
      urls,
      { requests: 'github-push', entities: ENTITIES, connections: 32, warmSeconds: SKEWED_WARM_S, seconds: SKEWED_S, hot: { entities: 10, share: 0.9 } },
      3,
    );
    const budgeted = byServer[String(DEFAULT_MEMORY_BUDGET_MIB)]!;
    const none = byServer['0']!;
    return {
      name: `skewed load (90 % to 10 hot entities, 10 % over ${ENTITIES - 10}), --memory-budget ${DEFAULT_MEMORY_BUDGET_MIB} (${budgeted.errors} errors)`,
      unit: 'req/s',
      value: budgeted.rate,
      baseline: 'no budget (req/s)',
      baselineValue: none.rate,
      ratio: pairedRatio(budgeted, none),
      target: 0.8,
    };
  } finally {
    await stopAll(all);
  }
}

/** Part 4: a wake's parts, in-process, on copies of an instance folder that part 1 left. */
async function wakeParts(data: string): Promise<BenchResult[]> {
  const namespace = fs
    .readdirSync(data)
    .map((entry) => path.join(data, entry))
    .find((dir) => fs.readdirSync(dir).some((entry) => fs.existsSync(path.join(dir, entry, 'name'))))!;
  const instance = fs
    .readdirSync(namespace)
    .map((entry) => path.join(namespace, entry))
    .find((dir) => fs.existsSync(path.join(dir, 'name')))!;
  const sql = await loadSqlJs();
  const heaps = separateSqlJsLoader();
  const rounds = 30;
  let heapMs = 0;
  let openMs = 0;
  let readMs = 0;
  for (let i = 0; i < rounds; i++) {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-wake-'));
    fs.cpSync(instance, copy, { recursive: true });
    let t = performance.now();
    for (const file of fs.readdirSync(copy)) fs.readFileSync(path.join(copy, file));
    readMs += performance.now() - t;
    t = performance.now();
    await heaps();
    heapMs += performance.now() - t;
    t = performance.now();
    const db = await DurableDatabase.open({ sql, dir: copy });
    openMs += performance.now() - t;
    await db.close({ snapshot: false });
    fs.rmSync(copy, { recursive: true, force: true });
  }
  const bytes = fs.readdirSync(instance).reduce((n, file) => n + fs.statSync(path.join(instance, file)).size, 0);
  const per = (ms: number): number => ms / rounds;
  return [
    {
      name: `a wake's database open (snapshot read + sql.js load of the file + journal replay; ${Math.round(bytes / 1024)} KiB of files)`,
      unit: 'ms',
      value: per(openMs),
      baseline: 'reading the files alone (ms)',
      baselineValue: per(readMs),
      ratio: per(readMs) / per(openMs),
    },
    {
      name: 'a new sql.js heap (only when the current heap is full: one in 128 wakes)',
      unit: 'ms',
      value: per(heapMs),
      baseline: "a wake's database open (ms)",
      baselineValue: per(openMs),
      ratio: per(openMs) / per(heapMs),
    },
  ];
}

async function main(): Promise<void> {
  const { results, data } = await peakAndIdle();
  results.push(...(await wakeParts(data)));
  results.push(...(await uniformCurve()));
  results.push(await skewed());
  report('memory', results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
