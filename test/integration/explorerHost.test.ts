// A benchmark, not a check (docs/performance.md, "The explorer in the extension host"): the
// explorer in the real VS Code at 1,000 entities and 200 webhooks a second, the Agents view's
// namespace page open with five instances and their State and Events, and the Deliveries view.
// What the extension host and serve cost is read from /proc/<pid>/stat, the counters `top` reads
// from outside, over a quiet window and over the load; the load comes from a process of its own.
// Run by `npm run bench -- explorer-host` (HOOKBENCH_TEST_ONLY=explorer-host), never by npm test.
// It reports figures and asserts only that the load went through.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import { AdminRequests } from '../unit/helpers/adminRequests';
import { api, nextRestart, withSecret } from './helpers';
import { reportFigure } from './reporter';
import { rowsUnder } from './treeViews';

const SECRET = 'explorer-host-secret';
const ENTITIES = Number(process.env['HOOKBENCH_EXPLORER_ENTITIES'] ?? 1000);
const RATE = Number(process.env['HOOKBENCH_EXPLORER_RATE'] ?? 200);
const SECONDS = Number(process.env['HOOKBENCH_EXPLORER_SECONDS'] ?? 30);
const NAMESPACE = 'webhook-agent';
const EXPANDED = 5;

const entity = (i: number) => `host-${String(i).padStart(4, '0')}`;

/** One signed push per entity: GitHub signs the body only, so the load sends each with new delivery ids. */
function signedBodies(): { path: string; body: string; signature: string }[] {
  return Array.from({ length: ENTITIES }, (_, i) => {
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: `Acme/${entity(i)}` }, pusher: { name: 'zoe' }, commits: [] });
    const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
    return { path: `/webhooks/github/${entity(i)}`, body, signature: headers['X-Hub-Signature-256']! };
  });
}

/**
 * The load, as a script for a Node process of its own (its CPU is not the extension host's): the
 * bodies at `rate` a second for `seconds`, each entity in turn, every request on its own promise.
 */
const LOAD_SCRIPT = `
const http = require('node:http');
const { url, rate, seconds, file } = JSON.parse(process.argv[1]);
const bodies = JSON.parse(require('node:fs').readFileSync(file, 'utf8'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
let sent = 0, errors = 0;
const statuses = {};
const started = performance.now();
const pending = new Set();
const post = (b, n) => new Promise((resolve) => {
  const req = http.request(url + b.path, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'host-' + process.pid + '-' + n, 'x-hub-signature-256': b.signature } }, (res) => {
    if (res.statusCode !== 200) { errors++; statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1; }
    res.resume();
    res.on('end', resolve);
  });
  req.on('error', (e) => { errors++; statuses[e.code] = (statuses[e.code] || 0) + 1; resolve(); });
  req.end(b.body);
});
const tick = () => {
  const due = Math.min(Math.floor(((performance.now() - started) / 1000) * rate), rate * seconds);
  while (sent < due) {
    const n = sent++;
    const p = post(bodies[n % bodies.length], n).finally(() => pending.delete(p));
    pending.add(p);
  }
  if (sent < rate * seconds) setTimeout(tick, 5);
  else Promise.all(pending).then(() => { agent.destroy(); process.stdout.write(JSON.stringify({ sent, errors, statuses })); });
};
tick();
`;

/** CPU seconds (user + system) `pid` has used, from /proc/<pid>/stat (fields 14 and 15, in ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The receiver's process: the child of this extension host running `cli.js serve`. */
function servePid(): number {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (parent === process.pid && args.some((arg) => arg.endsWith('cli.js')) && args.includes('serve')) return Number(entry);
    } catch {
      // gone while listing
    }
  }
  throw new Error('no hookbench serve under this extension host');
}

/** The CPU the extension host and serve used over `run`, each as a share of one core. */
async function cpuOver<T>(serve: number, run: () => Promise<T>): Promise<{ host: number; serve: number; seconds: number; result: T }> {
  const before = { host: cpuSeconds(process.pid), serve: cpuSeconds(serve), at: performance.now() };
  const result = await run();
  const seconds = (performance.now() - before.at) / 1000;
  return { host: (cpuSeconds(process.pid) - before.host) / seconds, serve: (cpuSeconds(serve) - before.serve) / seconds, seconds, result };
}

/**
 * With a file to write to (HOOKBENCH_EXPLORER_PROFILE=/tmp/host writes /tmp/host-quiet.cpuprofile
 * and /tmp/host-load.cpuprofile), starts a CPU profile of this extension host and returns what stops it
 * and writes it there (open it in Chrome's DevTools, Performance): where the load's cost goes.
 */
async function profileIf(file: string | undefined): Promise<(() => Promise<void>) | undefined> {
  if (!file) return undefined;
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 1000 });
  await post('Profiler.start');
  return async () => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

describe('the explorer in the extension host at scale', () => {
  it(`follows ${ENTITIES} entities at ${RATE} webhooks/s with the Agents and Deliveries views open`, async function () {
    this.timeout(0);
    const hookbench = await api();
    // The explorer's cost, not the memory budget's: with the default budget (192 MiB) a uniform
    // load over 1,000 entities wakes an instance for nearly every webhook, and serve, at a full
    // core, falls behind the load (the memory bench's curve measures that). No budget here.
    await hookbench.receiver.ready();
    const restarted = nextRestart(hookbench, 45_000);
    await vscode.workspace.getConfiguration('hookbench').update('receiver.memoryBudget', 0, vscode.ConfigurationTarget.Workspace);
    await restarted;
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', SECRET);
    const bodies = signedBodies();
    // Every entity exists before anything is measured.
    for (let start = 0; start < bodies.length; start += 25) {
      await Promise.all(
        bodies.slice(start, start + 25).map(async (b) =>
          assert.equal(
            (
              await fetch(url + b.path, {
                method: 'POST',
                body: b.body,
                headers: {
                  'content-type': 'application/json',
                  'x-github-event': 'push',
                  'x-github-delivery': `host-setup-${b.path}`,
                  'x-hub-signature-256': b.signature,
                },
              })
            ).status,
            200,
          ),
        ),
      );
    }
    await vscode.commands.executeCommand('workbench.view.extension.hookbench');
    const page = await rowsUnder('Agents', [NAMESPACE]);
    const opened = page
      .filter((row) => row.label.startsWith('host-'))
      .slice(0, EXPANDED)
      .map((row) => row.label);
    assert.equal(opened.length, EXPANDED, 'the namespace page lists the entities');
    for (const name of opened) {
      await rowsUnder('Agents', [NAMESPACE, name]);
      await rowsUnder('Agents', [NAMESPACE, name, 'State']);
      await rowsUnder('Agents', [NAMESPACE, name, 'Events']);
    }
    await rowsUnder('Deliveries');
    const serve = servePid();
    const profile = process.env['HOOKBENCH_EXPLORER_PROFILE'];
    const profilingQuiet = await profileIf(profile && `${profile}-quiet.cpuprofile`);
    const quiet = await cpuOver(serve, () => new Promise((resolve) => setTimeout(resolve, Math.min(SECONDS, 20) * 1000)));
    await profilingQuiet?.();

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-explorer-host-')), 'bodies.json');
    fs.writeFileSync(file, JSON.stringify(bodies));
    const requests = new AdminRequests(url);
    const profiling = await profileIf(profile && `${profile}-load.cpuprofile`);
    const loaded = await cpuOver(
      serve,
      () =>
        new Promise<{ sent: number; errors: number; statuses: Record<string, number> }>((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', LOAD_SCRIPT, JSON.stringify({ url, rate: RATE, seconds: SECONDS, file })], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
          child.once('error', reject);
          child.once('exit', (code) =>
            code === 0
              ? resolve(JSON.parse(out) as { sent: number; errors: number; statuses: Record<string, number> })
              : reject(new Error(`the load exited with ${code}: ${out}`)),
          );
        }),
    );
    requests.dispose();
    await profiling?.();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    const { sent, errors, statuses } = loaded.result;
    assert.equal(errors, 0, `every webhook was answered 200: ${JSON.stringify(statuses)}`);
    reportFigure(
      'explorer host: webhooks sent',
      `${sent} in ${loaded.seconds.toFixed(1)} s (${(sent / loaded.seconds).toFixed(0)}/s) over ${ENTITIES} entities`,
    );
    reportFigure('explorer host: extension host CPU, views open, no traffic', percent(quiet.host));
    reportFigure('explorer host: extension host CPU under the load', percent(loaded.host));
    reportFigure('explorer host: serve CPU, no traffic', percent(quiet.serve));
    reportFigure('explorer host: serve CPU under the load', percent(loaded.serve));
    reportFigure('explorer host: admin requests per webhook under the load', (requests.count / sent).toFixed(4));
  });
});
