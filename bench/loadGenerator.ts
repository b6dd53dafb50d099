// The load generator, in a process of its own so that no server it measures shares its event loop:
//   node out/bench/loadGenerator.js '<LoadPlan JSON>'
// POSTs as fast as the keep-alive connections allow for the plan's seconds (after an unmeasured
// warm-up) and prints one JSON line, a LoadResult.
import { Pool } from 'undici';
import type { LoadPlan, LoadResult } from './harness';
import { signedPush } from './pushes';

/** The i-th request of each kind of load the benches send. */
const requests: Record<
  LoadPlan['requests'],
  (i: number, entities: number, entity: number) => { path: string; body: string; headers?: Record<string, string> }
> = {
  'github-push': (i, entities, entity) => ({ path: '/webhooks/github', ...signedPush(i, `${process.pid}`, entities, entity) }),
  counter: (i, _entities, entity) => ({ path: `/agents/counter-agent/entity-${entity}`, body: `user-${process.pid}-${i}` }),
};

/**
 * The entity of the i-th request: each in turn, or with `hot`, mostly the hot ones and the rest
 * over the tail, in turn too (7919 is -1 modulo 990: with 1,000 entities and 10 hot, each tail
 * entity once every 9,900 requests), which is the worst case for a least-recently-used cache.
 */
function entityOf(i: number, plan: LoadPlan): number {
  const hot = plan.hot;
  if (!hot) return i % plan.entities;
  if (i % 100 < hot.share * 100) return i % hot.entities;
  return hot.entities + ((i * 7919) % (plan.entities - hot.entities));
}

async function run(plan: LoadPlan, seconds: number, startAt: number): Promise<LoadResult> {
  const make = requests[plan.requests];
  const pool = new Pool(plan.url, { connections: plan.connections, pipelining: 1 });
  const latencies: number[] = [];
  let next = startAt;
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: plan.connections }, async () => {
      while (performance.now() < deadline) {
        const i = next++;
        const { path, body, headers } = make(i, plan.entities, entityOf(i, plan));
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
  return {
    rate: latencies.length / elapsed,
    p50: latencies[Math.floor(latencies.length / 2)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
    errors,
    next,
  };
}

async function main(): Promise<void> {
  const plan = JSON.parse(process.argv[2]!) as LoadPlan;
  let startAt = plan.startAt;
  if (plan.warmSeconds > 0) startAt = (await run(plan, plan.warmSeconds, startAt)).next;
  const result = await run(plan, plan.seconds, startAt);
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
