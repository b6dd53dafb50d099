// The soak (`npm run soak -- --minutes 30`): mixed signed webhook traffic from every provider's
// templates over 1,000 entities while WebSocket clients connect and leave, against `hookbench
// serve` as a process. Every 30 s it samples the server's resident memory, open files and journal
// bytes; at the end it restarts the server and checks that every entity's durable count of stored
// events equals the deliveries it acknowledged. Writes bench/results/<date>-soak.json and .md.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import WebSocket from 'ws';
import { buildDelivery, templatesFor } from '../src/core/payloads';
import { schemeFor, type ProviderName } from '../src/core/signing';
import { startServeProcess } from './harness';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '30' }, rate: { type: 'string', default: '150' }, entities: { type: 'string', default: '1000' } },
});
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const ENTITIES = Number(values.entities);
const TOKEN = 'soak-admin-token';
const SECRETS: Record<string, string> = {
  GITHUB_WEBHOOK_SECRET: 'soak-github',
  STRIPE_WEBHOOK_SECRET: 'whsec_soak',
  SLACK_SIGNING_SECRET: 'soak-slack',
  SHOPIFY_WEBHOOK_SECRET: 'soak-shopify',
  STANDARD_WEBHOOK_SECRET: 'whsec_' + Buffer.from('soak standard webhooks key!!').toString('base64'),
};
const SECRET_OF: Partial<Record<ProviderName, string>> = {
  github: SECRETS['GITHUB_WEBHOOK_SECRET'],
  stripe: SECRETS['STRIPE_WEBHOOK_SECRET'],
  slack: SECRETS['SLACK_SIGNING_SECRET'],
  shopify: SECRETS['SHOPIFY_WEBHOOK_SECRET'],
  standard: SECRETS['STANDARD_WEBHOOK_SECRET'],
};
const PROVIDERS = Object.keys(SECRET_OF) as ProviderName[];

interface Sample {
  readonly minute: number;
  readonly rssMiB: number;
  readonly openFiles: number;
  readonly journalKiB: number;
  readonly largestJournalKiB: number;
  readonly acknowledged: number;
  readonly failed: number;
  readonly wsOpen: number;
}

function signedRequest(i: number): { entity: string; path: string; body: Buffer; headers: Record<string, string> } {
  const provider = PROVIDERS[i % PROVIDERS.length]!;
  const templates = templatesFor(provider);
  const template = templates[Math.floor(i / PROVIDERS.length) % templates.length]!;
  const entity = `soak-${i % ENTITIES}`;
  // Fresh UUIDs: templates derive their provider ids (Slack's event_id, …) from them, and the receiver dedups by those.
  const delivery = buildDelivery(template, { entity });
  const { headers } = schemeFor(provider).sign({ secret: SECRET_OF[provider]!, body: delivery.body });
  return { entity, path: `/webhooks/${provider}/${entity}`, body: delivery.body, headers: { ...delivery.headers, ...headers } };
}

function journals(dir: string): { total: number; largest: number } {
  let total = 0;
  let largest = 0;
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!/journal-\d+\.log$/.test(file)) continue;
    let size: number;
    try {
      size = fs.statSync(path.join(dir, file)).size;
    } catch {
      continue; // a snapshot deleted it between the listing and now
    }
    total += size;
    largest = Math.max(largest, size);
  }
  return { total, largest };
}

function processFacts(pid: number): { rssMiB: number; openFiles: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssMiB: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024, openFiles: fs.readdirSync(`/proc/${pid}/fd`).length };
}

async function main(): Promise<void> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-soak-'));
  const args = ['--data', data, '--no-render', '--no-watch', '--admin-token', TOKEN];
  const serve = await startServeProcess(args, SECRETS);
  const pid = serve.pid;
  const pool = new Pool(serve.url, { connections: 16 });
  const acked = new Map<string, number>();
  let acknowledged = 0;
  let failed = 0;
  let sent = 0;
  const sockets = new Set<WebSocket>();
  const samples: Sample[] = [];
  const started = performance.now();
  const end = started + MINUTES * 60_000;

  // WebSocket clients come and go: about 20 open at any time, each for 1–20 s.
  const clients = setInterval(() => {
    if (sockets.size >= 20) return;
    const ws = new WebSocket(`${serve.url.replace('http', 'ws')}/agents/webhook-agent/soak-${Math.floor(Math.random() * ENTITIES)}`);
    sockets.add(ws);
    ws.on('error', () => undefined);
    ws.on('close', () => sockets.delete(ws));
    setTimeout(() => ws.close(), 1000 + Math.random() * 19_000);
  }, 250);

  const sample = () => {
    const facts = processFacts(pid);
    const j = journals(data);
    samples.push({
      minute: (performance.now() - started) / 60_000,
      ...facts,
      journalKiB: j.total / 1024,
      largestJournalKiB: j.largest / 1024,
      acknowledged,
      failed,
      wsOpen: sockets.size,
    });
    const s = samples.at(-1)!;
    process.stderr.write(
      `soak ${s.minute.toFixed(1)} min: ${acknowledged} acknowledged, ${failed} failed, RSS ${s.rssMiB.toFixed(0)} MiB, ${s.openFiles} fds, journals ${s.journalKiB.toFixed(0)} KiB (largest ${s.largestJournalKiB.toFixed(0)}), ${s.wsOpen} sockets\n`,
    );
  };
  const sampler = setInterval(sample, 30_000);
  sample();

  // Paced load: RATE requests a second in steps of 100 ms, at most 64 in flight.
  let inFlight = 0;
  while (performance.now() < end) {
    const due = Math.floor(((performance.now() - started) / 1000) * RATE);
    while (sent < due && inFlight < 64) {
      const request = signedRequest(sent++);
      inFlight++;
      pool
        .request({ method: 'POST', path: request.path, body: request.body, headers: request.headers })
        .then(async (response) => {
          await response.body.dump();
          if (response.statusCode === 200) {
            acknowledged++;
            acked.set(request.entity, (acked.get(request.entity) ?? 0) + 1);
          } else failed++;
        })
        .catch(() => failed++)
        .finally(() => inFlight--);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  clearInterval(clients);
  clearInterval(sampler);
  sample();
  for (const ws of sockets) ws.close();
  await pool.close();
  serve.stop();
  await serve.exited;

  // Restarted, every entity's durable count equals what it acknowledged.
  const check = await startServeProcess(args, SECRETS);
  let mismatched = 0;
  for (const [entity, count] of acked) {
    const response = await fetch(`${check.url}/__hookbench/instances/webhook-agent/${entity}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const info = (await response.json()) as { state?: { stats?: { total?: number } } };
    if (info.state?.stats?.total !== count) {
      mismatched++;
      process.stderr.write(`${entity}: acknowledged ${count}, stored ${info.state?.stats?.total}\n`);
    }
  }
  check.stop();
  await check.exited;

  const quarter = samples[Math.max(1, Math.floor(samples.length / 4))]!;
  const last = samples.at(-1)!;
  const summary = {
    minutes: MINUTES,
    rate: RATE,
    entities: ENTITIES,
    acknowledged,
    failed,
    entitiesChecked: acked.size,
    mismatched,
    rssGrowth: last.rssMiB / quarter.rssMiB,
    openFilesGrowth: last.openFiles - quarter.openFiles,
    largestJournalKiB: Math.max(...samples.map((s) => s.largestJournalKiB)),
    samples,
  };
  const day = new Date().toISOString().slice(0, 10);
  const out = path.resolve(__dirname, '..', '..', 'bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, `${day}-soak.json`), JSON.stringify(summary, null, 2) + '\n');
  const table = samples
    .map(
      (s) =>
        `| ${s.minute.toFixed(1)} | ${s.acknowledged} | ${s.failed} | ${s.rssMiB.toFixed(0)} | ${s.openFiles} | ${s.journalKiB.toFixed(0)} | ${s.largestJournalKiB.toFixed(0)} | ${s.wsOpen} |`,
    )
    .join('\n');
  fs.writeFileSync(
    path.join(out, `${day}-soak.md`),
    `# Soak ${day}: ${MINUTES} min, ${RATE} req/s target, ${ENTITIES} entities, WebSocket clients coming and going\n\n` +
      `${acknowledged} deliveries acknowledged, ${failed} not; after a restart ${acked.size - mismatched} of ${acked.size} entities hold exactly the events they acknowledged (${mismatched} mismatched).\n` +
      `Resident memory end / first quarter: ${summary.rssGrowth.toFixed(2)}; open files end − first quarter: ${summary.openFilesGrowth}; largest journal ${summary.largestJournalKiB.toFixed(0)} KiB.\n\n` +
      `| minute | acknowledged | failed | RSS MiB | open files | journals KiB | largest journal KiB | sockets |\n|---|---|---|---|---|---|---|---|\n${table}\n`,
  );
  process.stdout.write(JSON.stringify({ ...summary, samples: samples.length }) + '\n');
  process.exitCode = mismatched === 0 && failed === 0 ? 0 : 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
