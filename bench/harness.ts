// Shared by every benchmark: interleaved timing against a same-run baseline, and the result shape
// scripts/bench.mjs collects. Figures are ratios to the baseline, never absolute pass/fail times.
import { SERVE_PROCESS_ENV } from '../src/core/contract/serveEnvironment';
import { listeningUrl } from '../src/core/contract/serveHandshake';

export interface BenchResult {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
  readonly baseline: string;
  readonly baselineValue: number;
  /** value / baselineValue for throughputs (higher is better). */
  readonly ratio: number;
  /** The goal the issue sets for the ratio, when there is one. */
  readonly target?: number;
}

/** Operations per second of `fn`, run for about `ms` milliseconds. */
export function opsPerSecond(fn: () => unknown, ms: number): number {
  let ops = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let elapsed = 0n;
  do {
    for (let i = 0; i < 8; i++) fn();
    ops += 8;
    elapsed = process.hrtime.bigint() - start;
  } while (elapsed < budget);
  return ops / (Number(elapsed) / 1e9);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Throughput of `subject` and `baseline`, alternating short rounds so that both see the same
 * machine noise; each figure is the median over the rounds.
 */
export function compareThroughput(subject: () => unknown, baseline: () => unknown, rounds = 7, roundMs = 150): { value: number; baselineValue: number } {
  subject();
  baseline();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(opsPerSecond(subject, roundMs));
    b.push(opsPerSecond(baseline, roundMs));
  }
  return { value: median(a), baselineValue: median(b) };
}

/** Prints the results as the one JSON line scripts/bench.mjs reads. */
export function report(suite: string, results: BenchResult[]): void {
  process.stdout.write(JSON.stringify({ suite, results }) + '\n');
}

/** Whether `HOOKBENCH_BENCH_QUICK=1` asks for a short run (development; figures are rougher). */
export const QUICK = process.env.HOOKBENCH_BENCH_QUICK === '1';

/** `full` seconds, or `quick` seconds in a quick run. */
export function benchSeconds(full: number, quick: number): number {
  return QUICK ? quick : full;
}

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly stop: () => void;
  readonly exited: Promise<number | null>;
}

/** A Node process running `args` on this Node; resolves once it prints `listening on URL`. */
export async function spawnServer(args: string[], env: Record<string, string> = {}, base: NodeJS.ProcessEnv = process.env): Promise<ServerProcess> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, args, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // Whole lines only: a chunk may end inside the URL.
      const url = out
        .split('\n')
        .slice(0, -1)
        .map(listeningUrl)
        .find((found) => found !== undefined);
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM'), exited };
}

/**
 * The CLI the benchmarks start: dist/cli.js, or another build's (`HOOKBENCH_BENCH_CLI`, a path to
 * its cli.js, inside this checkout so that it finds the same node_modules), to compare two builds
 * on the same machine in one run.
 */
async function cliPath(): Promise<string> {
  const path = await import('node:path');
  return path.resolve(process.env.HOOKBENCH_BENCH_CLI ?? path.join(__dirname, '..', '..', 'dist', 'cli.js'));
}

/**
 * `hookbench serve` as a user starts it from a shell: dist/cli.js on port 0 without the
 * environment the extension gives it (SERVE_PROCESS_ENV), which the CLI then sets itself.
 */
export async function startServeAsUser(args: string[], env: Record<string, string> = {}, cli?: string): Promise<ServerProcess> {
  cli ??= await cliPath();
  const inherited = { ...process.env };
  for (const name of Object.keys(SERVE_PROCESS_ENV)) delete inherited[name];
  return spawnServer([cli, 'serve', '--port', '0', '--render-port', '0', ...args], { ...env }, inherited);
}

/** `hookbench serve` from dist/ as a child process on port 0; resolves once it listens. */
export async function startServeProcess(args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const cli = await cliPath();
  // HOOKBENCH_BENCH_PROFILE=<dir> writes a CPU profile of the server process there.
  const profile = process.env.HOOKBENCH_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HOOKBENCH_BENCH_PROFILE}`] : [];
  return spawnServer([...profile, cli, 'serve', '--port', '0', '--render-port', '0', ...args], { ...SERVE_PROCESS_ENV, ...env });
}

/** A baseline server (bench/baselineServer.ts) in its own process. */
export async function startBaselineServer(kind: 'bare' | 'floor' | 'floor-once' | 'floor-durable'): Promise<ServerProcess> {
  const path = await import('node:path');
  return spawnServer([path.join(__dirname, 'baselineServer.js'), kind]);
}

/** What bench/loadGenerator.ts is asked to send. */
export interface LoadPlan {
  readonly url: string;
  /** Signed 3.3 KB GitHub pushes to /webhooks/github, or counter-agent POSTs. */
  readonly requests: 'github-push' | 'counter';
  readonly entities: number;
  readonly connections: number;
  readonly warmSeconds: number;
  readonly seconds: number;
  /** The first request's index (delivery ids stay unique across rounds). */
  readonly startAt: number;
  /**
   * Skewed load: `share` of the requests go to the first `entities` (the hot ones), the rest
   * spread over the others (the long tail). Without it, every entity in turn.
   */
  readonly hot?: { readonly entities: number; readonly share: number };
}

export interface LoadResult {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  /** Answers other than 200. */
  readonly errors: number;
  /** The index the next request would have had. */
  readonly next: number;
}

/** Runs the load generator (bench/loadGenerator.ts) in a process of its own and reads its result. */
export async function loadFromProcess(plan: LoadPlan): Promise<LoadResult> {
  const { execFile } = await import('node:child_process');
  const path = await import('node:path');
  const script = path.join(__dirname, 'loadGenerator.js');
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [script, JSON.stringify(plan)], { maxBuffer: 1 << 20 }, (error, out, err) =>
      error ? reject(new Error(`load generator: ${err || error.message}`)) : resolve(out),
    ),
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as LoadResult;
}

/** One server's rounds: the median round by rate, all rounds' rates, and the errors over all. */
export type RoundsResult = LoadResult & { readonly rates: number[]; readonly rounds: LoadResult[] };

/**
 * Loads each server in turn, `rounds` times over, so that all see the same machine noise; the
 * order within a round alternates (a server first in one round is last in the next), and every
 * load starts after `warmSeconds` unmeasured. Per server, the median round by rate; compare two
 * servers with `pairedRatio`, round by round.
 */
export async function interleavedLoad(
  servers: Record<string, string>,
  plan: Omit<LoadPlan, 'url' | 'startAt'>,
  rounds: number,
): Promise<Record<string, RoundsResult>> {
  const byServer: Record<string, LoadResult[]> = Object.fromEntries(Object.keys(servers).map((k) => [k, []]));
  let startAt = 0;
  for (let round = 0; round < rounds; round++) {
    const order = Object.entries(servers);
    if (round % 2 === 1) order.reverse();
    for (const [name, url] of order) {
      const result = await loadFromProcess({ ...plan, url, startAt });
      startAt = result.next + 1_000_000;
      byServer[name]!.push(result);
    }
  }
  return Object.fromEntries(
    Object.entries(byServer).map(([name, results]) => {
      const sorted = [...results].sort((a, b) => a.rate - b.rate);
      const mid = sorted[Math.floor(sorted.length / 2)]!;
      return [name, { ...mid, errors: results.reduce((n, r) => n + r.errors, 0), rates: results.map((r) => r.rate), rounds: results }];
    }),
  );
}

/**
 * The median over rounds of `a`'s rate over `b`'s in the same round: two servers loaded one after
 * the other see nearly the same machine, while rounds minutes apart do not (on a shared machine
 * a whole round can run at a third of the speed of the next).
 */
export function pairedRatio(a: RoundsResult, b: RoundsResult): number {
  const ratios = a.rounds.map((r, i) => r.rate / b.rounds[i]!.rate).sort((x, y) => x - y);
  return ratios[Math.floor(ratios.length / 2)]!;
}
