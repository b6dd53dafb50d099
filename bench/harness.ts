// Shared by every benchmark: interleaved timing against a same-run baseline, and the result shape
// scripts/bench.mjs collects. Figures are ratios to the baseline, never absolute pass/fail times.

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
