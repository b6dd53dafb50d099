// Memory of `hookbench serve` over 1,000 entities, shortened from the soak: signed pushes
// at full rate (32 connections) for `ROUNDS` rounds, RSS read from /proc after each; then the load
// stops, instances are evicted after `--idle-ms 10000`, and RSS is read until it settles (at most
// 2 min). Issue targets: RSS ≤ 800 MiB under load, ≤ 400 MiB after the idle instances are
// evicted. Ratios are budget ÷ measured (≥ 1 meets the budget).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchSeconds, loadFromProcess, QUICK, report, startServeProcess, type BenchResult } from './harness';
import { BENCH_SECRET } from './pushes';

const ENTITIES = 1000;
const ROUNDS = QUICK ? 2 : 4;
const SECONDS = benchSeconds(15, 5);

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

function folderMiB(dir: string): number {
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    try {
      const stat = fs.statSync(path.join(dir, entry));
      if (stat.isFile()) bytes += stat.size;
    } catch {
      // removed while listing (a journal generation replaced by a snapshot)
    }
  }
  return Math.round(bytes / 2 ** 20);
}

async function main(): Promise<void> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-mem-'));
  const serve = await startServeProcess(['--data', data, '--no-render', '--idle-ms', '10000'], { GITHUB_WEBHOOK_SECRET: BENCH_SECRET, HOOKBENCH_LOG_LEVEL: 'warn' });
  const seen: string[] = [];
  let peak = 0;
  let startAt = 0;
  let requests = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const result = await loadFromProcess({ url: serve.url, requests: 'github-push', entities: ENTITIES, connections: 32, warmSeconds: 0, seconds: SECONDS, startAt });
    requests += result.next - startAt;
    startAt = result.next + 1_000_000;
    const rss = rssMiB(serve.pid);
    peak = Math.max(peak, rss);
    seen.push(`${Math.round(result.rate)} req/s → ${rss} MiB`);
  }
  const loadedData = folderMiB(data);
  const stoppedAt = performance.now();
  let after = rssMiB(serve.pid);
  while (performance.now() - stoppedAt < 120_000) {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    after = rssMiB(serve.pid);
    // Instances are evicted 10 s after their last request: judge after that.
    if (after <= 400 && performance.now() - stoppedAt > 15_000) break;
  }
  const settledS = Math.round((performance.now() - stoppedAt) / 1000);
  serve.stop();
  await serve.exited;
  const plan = `${ENTITIES} entities, ${ROUNDS} rounds of ${SECONDS} s at c=32, ${requests} pushes (${seen.join(', ')}); data folder ${loadedData} MiB`;
  const results: BenchResult[] = [
    { name: `peak RSS of hookbench serve under load: ${plan}`, unit: 'MiB', value: peak, baseline: 'budget (MiB)', baselineValue: 800, ratio: 800 / peak, target: 1 },
    { name: `RSS ${settledS} s after the load stopped (idle instances evicted after 10 s)`, unit: 'MiB', value: after, baseline: 'budget (MiB)', baselineValue: 400, ratio: 400 / after, target: 1 },
  ];
  report('memory', results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
