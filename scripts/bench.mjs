// @ts-check
// `npm run bench`: builds bench/*.bench.ts, runs each in its own process, and writes
// bench/results/<date>.json and .md: every figure as a ratio to its same-run baseline.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run, step } from './lib/run.mjs';
import { ensureNpmPackages, root } from './lib/setup.mjs';

await ensureNpmPackages();
await run(process.execPath, ['esbuild.js', '--bench', '--tests'], { cwd: root });
const only = process.argv.slice(2);
const dir = path.join(root, 'out', 'bench');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.bench.js') && (only.length === 0 || only.some((o) => f.startsWith(o))));

/** @type {{ suite: string, results: { name: string, unit: string, value: number, baseline: string, baselineValue: number, ratio: number, target?: number }[] }[]} */
const suites = [];
for (const file of files.sort()) {
  step(`bench ${file}`);
  const result = spawnSync(process.execPath, ['--expose-gc', path.join(dir, file)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) {
    console.error(`${file} failed with ${result.status}`);
    process.exitCode = 1;
    continue;
  }
  const line = result.stdout.trim().split('\n').findLast((l) => l.startsWith('{"suite"'));
  if (line) suites.push(JSON.parse(line));
}

// A run of some suites replaces those suites in the day's results and keeps the others.
const resultsFile = path.join(root, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}.json`);
if (only.length > 0 && fs.existsSync(resultsFile)) {
  const previous = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  for (const suite of previous.suites ?? []) if (!suites.some((s) => s.suite === suite.suite)) suites.push(suite);
  suites.sort((a, b) => a.suite.localeCompare(b.suite));
}

const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${os.type()} ${os.release()}`,
};
const fmt = (/** @type {number} */ n) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toPrecision(3));
const rows = suites.flatMap((s) =>
  s.results.map((r) => {
    const met = r.target === undefined ? '' : r.ratio >= r.target ? ` ✔ (≥ ${r.target})` : ` ✘ (target ≥ ${r.target})`;
    return `| ${s.suite} | ${r.name} | ${fmt(r.value)} ${r.unit} | ${fmt(r.baselineValue)} (${r.baseline}) | **${r.ratio.toFixed(2)}**${met} |`;
  }),
);
const date = new Date().toISOString().slice(0, 10);
const markdown = [
  `# Hookbench benchmarks, ${date}`,
  '',
  `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.platform}.`,
  'Each figure is measured in the same run as its baseline; the ratio is the figure to compare across machines.',
  '',
  '| suite | benchmark | value | baseline | ratio |',
  '|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench', 'results', `${date}.json`), JSON.stringify({ date, machine, suites }, null, 2) + '\n');
fs.writeFileSync(path.join(root, 'bench', 'results', `${date}.md`), markdown);
console.log('\n' + markdown);
