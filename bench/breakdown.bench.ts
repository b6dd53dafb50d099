// Where the runtime's share of a webhook goes: signed 3.3 KB GitHub pushes over 100 entities
// (32 in flight) straight into WorkerRuntime.fetch with the built-in worker, in this process (no
// HTTP, no deliveries log). It measures the main thread's CPU per request and the time spent in
// each SQL statement, in setState and in journal encoding. Each row is a step's share of the
// whole request. The timing wrappers below are instrumentation for this benchmark only.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { nullLogger } from '../src/core/log';
import { Agent } from '../src/runtime/agents/agent';
import { createPlatform } from '../src/runtime/platform';
import { DurableDatabase } from '../src/runtime/storage/durableDatabase';
import { JournalWriter } from '../src/runtime/storage/journal';
import { loadSqlJs } from '../src/runtime/storage/sqljs';
import { schemeFor } from '../src/core/signing';
import { defaultWorkerConfig } from '../src/serve/defaultWorker';
import { WorkerHost } from '../src/serve/workerHost';
import { report, type BenchResult } from './harness';
import { pushBody } from './pushes';

const SECRET = 'bench-github-secret';
const spent = new Map<string, number>();

/** Adds the time spent in `proto[method]` to `spent` under the label `label(args)` gives. */
function timed(proto: object, method: string, label: (args: unknown[]) => string): void {
  const target = proto as Record<string, (...args: unknown[]) => unknown>;
  const original = target[method]!;
  target[method] = function (this: unknown, ...args: unknown[]) {
    const started = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const key = label(args);
      spent.set(key, (spent.get(key) ?? 0) + performance.now() - started);
    }
  };
}

/** CPU time of this process's main thread, in ms (Linux). */
function mainThreadMs(): number {
  const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function main(): Promise<void> {
  timed(DurableDatabase.prototype, 'exec', ([sql]) => `SQL ${String(sql).replace(/\s+/g, ' ').slice(0, 40)}…`);
  timed(JournalWriter.prototype, 'append', () => 'journal record encoding');
  timed(Agent.prototype, 'setState', () => 'setState (persist, frame, notify)');

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-breakdown-'));
  const prebuilt = path.resolve(__dirname, '..', '..', 'dist', 'workers', 'default.js');
  const sql = await loadSqlJs(path.resolve(__dirname, '..', '..', 'dist', 'sql-wasm.wasm'));
  const platform = { ...createPlatform({ sql, logger: nullLogger, dataDir }), esbuild };
  const host = await WorkerHost.start(platform, {
    entry: prebuilt,
    prebuilt,
    config: defaultWorkerConfig({}),
    secrets: { GITHUB_WEBHOOK_SECRET: SECRET },
    watch: false,
  });
  const runtime = await host.runtime();

  const github = schemeFor('github');
  const requests = Array.from({ length: 26_000 }, (_, n) => {
    const body = Buffer.from(pushBody(n % 100, n));
    const signature = github.sign({ secret: SECRET, body }).headers['X-Hub-Signature-256']!;
    return {
      body,
      headers: [
        ['content-type', 'application/json'],
        ['x-github-event', 'push'],
        ['x-github-delivery', `breakdown-${n}`],
        ['x-hub-signature-256', signature],
      ] as [string, string][],
    };
  });
  let next = 0;
  const run = async (count: number) => {
    const end = next + count;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < end) {
          const { body, headers } = requests[next++]!;
          const response = await runtime.fetch(new Request('http://127.0.0.1:8787/webhooks/github', { method: 'POST', headers, body }));
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`answered ${response.status}`);
        }
      }),
    );
  };
  await run(6_000); // every entity reaches its 100-event retention
  spent.clear();
  const measured = 20_000;
  const cpu = mainThreadMs();
  await run(measured);
  const perRequest = ((mainThreadMs() - cpu) * 1000) / measured;
  await host.stop();

  const results: BenchResult[] = [...spent]
    .filter(([, ms]) => (ms * 1000) / measured >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([step, ms]) => {
      const us = (ms * 1000) / measured;
      return {
        name: `${step}: share of a request`,
        unit: 'µs',
        value: us,
        baseline: 'main-thread CPU per request through WorkerRuntime.fetch (µs)',
        baselineValue: perRequest,
        ratio: us / perRequest,
      };
    });
  report('breakdown', results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
