// The explorer at scale (issue 14, item 3): its client code — the model, the live feed, the
// agents-protocol channels and the trees' data side, run here without VS Code — attached to a
// real `hookbench serve` with 1,000 entities receiving 200 signed webhooks/s, the Agents view
// (a namespace page, five instances with their State and Events) and the Deliveries view
// expanded. VS Code's part is played by redrawing every node a tree says changed.
//
// Measured: the explorer's admin requests and agent RPC calls per second under load, serve's CPU
// (from /proc/<pid>/stat) with and without the explorer, POST → instance-node-changed latency,
// and the explorer side's own CPU (this process with the explorer minus without it).
// HOOKBENCH_EXPLORER_SECONDS (default 30), _RATE (200/s) and _ENTITIES (1000) make a quick run.
import '../test/unit/helpers/vscodeShim';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Emitter } from '../src/core/events';
import { nullLogger } from '../src/core/log';
import { schemeFor } from '../src/core/signing';
import { AdminClient } from '../src/vscode/client/adminClient';
import { localReader } from '../src/vscode/client/instanceReader';
import { AdminRequests } from '../test/unit/helpers/adminRequests';
import { AgentCalls } from '../test/unit/helpers/agentCalls';
import { AgentsTree, type AgentNode } from '../src/vscode/views/agentsTree';
import { DeliveriesTree } from '../src/vscode/views/deliveriesTree';
import { ExplorerModel, type ExplorerFeed } from '../src/vscode/views/explorerModel';
import { report, startServeProcess, type BenchResult } from './harness';
import { pushBody } from './pushes';

const SECONDS = Number(process.env.HOOKBENCH_EXPLORER_SECONDS ?? 30);
const RATE = Number(process.env.HOOKBENCH_EXPLORER_RATE ?? 200);
const ENTITIES = Number(process.env.HOOKBENCH_EXPLORER_ENTITIES ?? 1000);
const SECRET = 'bench-github-secret';
const TOKEN = 'bench-admin-token';
const EXPANDED_INSTANCES = 5;

let sent = 0;
function signedPush(entity: number): { body: string; headers: Record<string, string> } {
  const n = sent++;
  const body = pushBody(entity, n);
  const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': `explorer-${process.pid}-${n}`,
      'x-hub-signature-256': headers['X-Hub-Signature-256']!,
    },
  };
}

/** CPU seconds (user + system) a process used so far, from /proc/<pid>/stat. */
function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5), counted from after "(comm)": utime and stime in clock ticks (100/s).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

/** Sends `rate` webhooks a second for `seconds`, spread over the entities; `onSent` sees each. */
async function paced(
  url: string,
  seconds: number,
  rate: number,
  onSent: (entity: number, at: number) => void = () => undefined,
): Promise<{ sent: number; errors: number }> {
  const { Pool } = await import('undici');
  const pool = new Pool(url, { connections: 16 });
  const started = performance.now();
  let count = 0;
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      if (elapsed >= seconds) {
        clearInterval(tick);
        return resolve();
      }
      for (; count < Math.floor(elapsed * rate); count++) {
        const entity = Math.floor(Math.random() * ENTITIES);
        const { body, headers } = signedPush(entity);
        const at = performance.now();
        onSent(entity, at);
        const request = pool
          .request({ method: 'POST', path: '/webhooks/github', body, headers })
          .then(async (response) => {
            await response.body.dump();
            if (response.statusCode !== 200) errors++;
          })
          .catch(() => void errors++)
          .finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
    }, 5);
  });
  await Promise.all(inFlight);
  await pool.close();
  return { sent: count, errors };
}

/** The explorer's client side, and a stand-in for VS Code that redraws what the trees say changed. */
async function attachExplorer(url: string) {
  // The explorer's admin requests, counted as they leave this process (the client keeps no count).
  const sent = new AdminRequests(url);
  const client = new AdminClient(url, TOKEN, nullLogger);
  // Its agent RPC calls, counted on the wire by a relay its agent sockets go through (a few frames a second here).
  const calls = await AgentCalls.start(url);
  const wire = {
    baseUrl: calls.url,
    ownerHeaders: client.ownerHeaders,
    events: (namespace: string, name: string, limit?: number) => client.events(namespace, name, limit),
  };
  const model = new ExplorerModel({
    retainedEvents: () => 100,
    openChannel: (instance) => localReader(wire, instance),
  });
  const feed: ExplorerFeed = { model, client, onDidChange: model.onDidChange, schedule: () => model.redraw() };
  const noWorkers = new Emitter<void>();
  const agents = new AgentsTree(feed, { list: () => [], connection: () => undefined, onDidChange: noWorkers.event });
  const deliveries = new DeliveriesTree(feed);
  const hello = new Promise<void>((resolve) => client.onLive((message) => message.type === 'hello' && resolve()));
  model.connect(client);
  client.onLive((message) => model.apply(message));
  client.connectLive();
  await hello;
  await model.ready();

  // What the user expanded: the namespace (its first page), five instances with State and Events.
  const expanded = new Set<AgentNode>();
  const [namespace] = await agents.getChildren();
  expanded.add(namespace!);
  const page = await agents.getChildren(namespace);
  for (const instance of page.filter((n) => n.kind === 'instance').slice(0, EXPANDED_INSTANCES)) {
    expanded.add(instance);
    agents.expanded(instance);
    for (const child of await agents.getChildren(instance)) {
      expanded.add(child);
      await agents.getChildren(child);
    }
  }
  await deliveries.getChildren();

  // VS Code's part: a changed node is drawn again, and its children read when it is expanded. Each
  // item drawn is one the extension host converts and sends to the window: counted.
  let drawn = 0;
  const redraw = async (node: AgentNode) => {
    agents.getTreeItem(node);
    drawn++;
    if (!expanded.has(node)) return;
    for (const child of await agents.getChildren(node)) {
      agents.getTreeItem(child);
      drawn++;
    }
  };
  const changedNodes = new Emitter<{ nodes: AgentNode[]; at: number }>();
  agents.onDidChangeTreeData((changed) => {
    const at = performance.now();
    const nodes = changed === undefined ? [...expanded] : Array.isArray(changed) ? changed : [changed];
    changedNodes.fire({ nodes, at });
    void Promise.all(nodes.map(redraw));
  });
  deliveries.onDidChangeTreeData(
    () =>
      void deliveries.getChildren().then((items) =>
        items.forEach((d) => {
          deliveries.getTreeItem(d);
          drawn++;
        }),
      ),
  );
  const requests = () => sent.count + calls.count;
  return {
    model,
    onLive: client.onLive,
    onNodesChanged: changedNodes.event,
    requests,
    drawn: () => drawn,
    adminRequests: () => sent.count,
    rpcCalls: () => calls.count,
    dispose: () => (model.dispose(), client.dispose(), sent.dispose(), void calls.close()),
  };
}

async function main(): Promise<void> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-explorer-'));
  const serve = await startServeProcess(['--data', data], { GITHUB_WEBHOOK_SECRET: SECRET, HOOKBENCH_ADMIN_TOKEN: TOKEN, HOOKBENCH_LOG_LEVEL: 'warn' });
  try {
    // Every entity gets its agent first.
    const { Pool } = await import('undici');
    const seed = new Pool(serve.url, { connections: 16 });
    for (let start = 0; start < ENTITIES; start += 16) {
      await Promise.all(
        Array.from({ length: Math.min(16, ENTITIES - start) }, async (_, i) => {
          const { body, headers } = signedPush(start + i);
          const response = await seed.request({ method: 'POST', path: '/webhooks/github', body, headers });
          await response.body.dump();
        }),
      );
    }
    await seed.close();

    // Without the explorer.
    let serveCpu = cpuSecondsOf(serve.pid);
    let ownCpu = ownCpuSeconds();
    let t = performance.now();
    const alone = await paced(serve.url, SECONDS, RATE);
    const aloneElapsed = (performance.now() - t) / 1000;
    const serveAlone = (cpuSecondsOf(serve.pid) - serveCpu) / aloneElapsed;
    const senderAlone = (ownCpuSeconds() - ownCpu) / aloneElapsed;

    // With the explorer attached and its views expanded.
    const explorer = await attachExplorer(serve.url);
    const initialRequests = explorer.requests();
    const totals = new Map<number, number>();
    const pending = new Map<number, { at: number; total: number }[]>();
    const name = (entity: number) => `acme-repo-${entity}`;
    const totalOf = (entity: number) =>
      (explorer.model.instance('WEBHOOK_AGENT', name(entity))?.state as { stats?: { total: number } } | null | undefined)?.stats?.total ?? 0;
    const latencies: number[] = [];
    // The feed alone (POST → the model knows), before the pacing VS Code's tree debounce needs.
    const feedLatencies: number[] = [];
    explorer.onLive((message) => {
      if (message.type !== 'state' || !message.name.startsWith('acme-repo-')) return;
      const total = (message.state as { stats?: { total: number } }).stats?.total ?? 0;
      const sentAt = pending.get(Number(message.name.slice('acme-repo-'.length)))?.find((p) => p.total === total)?.at;
      if (sentAt !== undefined) feedLatencies.push(performance.now() - sentAt);
    });
    explorer.onNodesChanged(({ nodes, at }) => {
      for (const node of nodes) {
        if (node.kind !== 'instance') continue;
        const entity = Number(node.name.slice('acme-repo-'.length));
        const waiting = pending.get(entity);
        if (!waiting) continue;
        const now = totalOf(entity);
        const left = waiting.filter((p) => (p.total <= now ? (latencies.push(at - p.at), false) : true));
        pending.set(entity, left);
      }
    });
    serveCpu = cpuSecondsOf(serve.pid);
    ownCpu = ownCpuSeconds();
    const requestsBefore = explorer.requests();
    const adminBefore = explorer.adminRequests();
    const rpcBefore = explorer.rpcCalls();
    const drawnBefore = explorer.drawn();
    t = performance.now();
    const watched = await paced(serve.url, SECONDS, RATE, (entity, at) => {
      // Only instances on the shown page have a node that can change.
      if (
        !explorer.model
          .instances('WEBHOOK_AGENT')
          .slice(0, 100)
          .some((e) => e.summary.name === name(entity))
      )
        return;
      const base = totals.get(entity) ?? totalOf(entity);
      totals.set(entity, base + 1);
      pending.set(entity, [...(pending.get(entity) ?? []), { at, total: base + 1 }]);
    });
    const watchedElapsed = (performance.now() - t) / 1000;
    const serveWatched = (cpuSecondsOf(serve.pid) - serveCpu) / watchedElapsed;
    const clientCpu = (ownCpuSeconds() - ownCpu) / watchedElapsed - senderAlone;
    const requestRate = (explorer.requests() - requestsBefore) / watchedElapsed;
    const adminRate = (explorer.adminRequests() - adminBefore) / watchedElapsed;
    const rpcRate = (explorer.rpcCalls() - rpcBefore) / watchedElapsed;
    const drawnRate = (explorer.drawn() - drawnBefore) / watchedElapsed;
    explorer.dispose();

    latencies.sort((a, b) => a - b);
    feedLatencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    const unseen = [...pending.values()].reduce((sum, list) => sum + list.length, 0);
    process.stderr.write(
      [
        `explorer bench: ${ENTITIES} entities, ${RATE}/s for ${SECONDS} s (sent ${alone.sent} alone, ${watched.sent} watched; errors ${alone.errors + watched.errors})`,
        `  serve CPU: ${(serveAlone * 100).toFixed(1)} % alone, ${(serveWatched * 100).toFixed(1)} % with the explorer (+${(((serveWatched - serveAlone) / serveAlone) * 100).toFixed(1)} %)`,
        `  explorer: ${initialRequests} requests to open the views, then ${adminRate.toFixed(2)} admin requests/s and ${rpcRate.toFixed(2)} agent RPC calls/s under load`,
        `  POST → instance node changed: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${latencies.length} webhooks to shown instances (${unseen} not seen)`,
        `  POST → live feed message at the model: p50 ${percentile(feedLatencies, 0.5).toFixed(1)} ms, p99 ${percentile(feedLatencies, 0.99).toFixed(1)} ms`,
        `  explorer client CPU: ${(clientCpu * 100).toFixed(2)} % of a core (sender alone ${(senderAlone * 100).toFixed(1)} %)`,
        `  tree items drawn: ${drawnRate.toFixed(0)}/s (each one the extension host converts and sends to VS Code's window)`,
        `  machine: ${os.cpus().length} cores, load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        '',
      ].join('\n'),
    );
    const results: BenchResult[] = [
      {
        name: 'serve CPU without / with the explorer',
        unit: '% of a core',
        value: serveWatched * 100,
        baseline: 'serve alone',
        baselineValue: serveAlone * 100,
        ratio: serveAlone / serveWatched,
        target: 1 / 1.1,
      },
      {
        name: 'explorer requests (admin + agent RPC) per webhook under load',
        unit: 'requests/s',
        value: requestRate,
        baseline: 'webhooks/s',
        baselineValue: watched.sent / watchedElapsed,
        ratio: 1 - requestRate / (watched.sent / watchedElapsed),
        target: 0.99,
      },
      { name: 'POST → tree node changed, p50', unit: 'ms', value: p50, baseline: 'target 50 ms', baselineValue: 50, ratio: 50 / p50, target: 1 },
      { name: 'POST → tree node changed, p99', unit: 'ms', value: p99, baseline: 'target 250 ms', baselineValue: 250, ratio: 250 / p99, target: 1 },
      {
        name: 'POST → live feed at the model, p50',
        unit: 'ms',
        value: percentile(feedLatencies, 0.5),
        baseline: 'target 50 ms',
        baselineValue: 50,
        ratio: 50 / percentile(feedLatencies, 0.5),
      },
      {
        name: 'tree items drawn under load (the extension host sends each to the window)',
        unit: 'items/s',
        value: drawnRate,
        baseline: 'webhooks/s',
        baselineValue: watched.sent / watchedElapsed,
        ratio: watched.sent / watchedElapsed / Math.max(drawnRate, 0.01),
      },
      {
        name: 'explorer client CPU',
        unit: '% of a core',
        value: clientCpu * 100,
        baseline: 'target 5 %',
        baselineValue: 5,
        ratio: 5 / Math.max(clientCpu * 100, 0.01),
        target: 1,
      },
    ];
    report('explorer', results);
  } finally {
    serve.stop();
    await serve.exited;
    fs.rmSync(data, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
