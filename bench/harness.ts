// Shared by every benchmark: interleaved timing against a same-run baseline, and the result shape
// scripts/bench.mjs collects. Figures are ratios to the baseline, never absolute pass/fail times.
import type { AddressInfo } from 'node:net';

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

/** `hookbench serve` from dist/ as a child process on port 0; resolves once it listens. */
export async function startServeProcess(args: string[], env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop: () => void; exited: Promise<number | null> }> {
  const { spawn } = await import('node:child_process');
  const path = await import('node:path');
  const cli = path.resolve(__dirname, '..', '..', 'dist', 'cli.js');
  // HOOKBENCH_BENCH_PROFILE=<dir> writes a CPU profile of the server process there.
  const profile = process.env.HOOKBENCH_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HOOKBENCH_BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, cli, 'serve', '--port', '0', '--render-port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM'), exited };
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

/**
 * POSTs as fast as `connections` keep-alive connections allow for `seconds`, the i-th request made
 * by `request(i)`; resolves with requests/s and latency percentiles.
 */
export async function httpLoad(
  url: string,
  seconds: number,
  request: (i: number) => { path: string; body: string; headers?: Record<string, string> },
  { connections = 32, startAt = 0 } = {},
): Promise<LoadResult> {
  const { Pool } = await import('undici');
  const pool = new Pool(url, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let next = startAt;
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const { path, body, headers } = request(next++);
        const t = performance.now();
        const response = await pool.request({ method: 'POST', path, body, headers });
        await response.body.dump();
        if (response.statusCode !== 200) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { rate: latencies.length / elapsed, p50: latencies[Math.floor(latencies.length / 2)]!, p99: latencies[Math.floor(latencies.length * 0.99)]!, errors, next };
}

/** A bare node:http server answering 200 without work: the baseline of the HTTP benchmarks. */
export async function startBareServer(): Promise<{ url: string; close: () => void }> {
  const http = await import('node:http');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('OK'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/**
 * The floor under any receiver built on the fetch API here: node:http, the body read, a `Request`,
 * the seed's router (clone, parse the payload for the entity) and agent (read the bytes again,
 * verify the HMAC timing-safe, parse), a `Response` read back and written — everything the
 * built-in worker's path does except the runtime, storage and logging. `clone: false` reads the
 * body once instead, to show what the seed's clone costs.
 */
export async function startFetchFloorServer(verify: (body: Uint8Array, headers: Headers) => boolean, { clone = true } = {}): Promise<{ url: string; close: () => void }> {
  const http = await import('node:http');
  const server = http.createServer(async (req, res) => {
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
    JSON.parse(Buffer.from(body).toString('utf8'));
    const response = new Response(ok ? 'OK' : 'Invalid signature', { status: ok ? 200 : 401, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    const bytes = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { 'content-type': 'text/plain;charset=UTF-8' });
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}
