/**
 * The differential runner: for each area under test/differential/areas/<area>/ (wrangler.jsonc,
 * the worker under worker/, and area.ts exporting an `Area`), starts the oracle (`wrangler dev`)
 * and `hookbench serve --worker` on a copy of that folder, sends every step to both at once,
 * compares what the step says to compare, and prints per-area figures. Exits 1 on any difference
 * or any area that could not run. `HOOKBENCH_AREA=<name>[,<name>]` runs only those areas.
 *
 * Run through `npm run test:differential` (scripts/testDifferential.mjs builds and passes
 * `--root`, `--wrangler` and `--cli`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { compareHttp, compareLog, compareWebSocket, type Observation } from './compare';
import { awaitLog, exchangeWebSocket, poll, sendHttp } from './drive';
import { scratchFolder, startHookbench, startOracle, tail, type RunningRuntime } from './runtimes';
import type { Answers, Area, HttpStep, Step } from './step';
import { findWranglerConfig, stripJsonc } from '../../src/core/runtime/worker/wranglerConfig';
import { parse as parseToml } from 'smol-toml';

interface AreaResult {
  readonly name: string;
  readonly steps: number;
  readonly agreed: number;
  readonly differed: readonly { step: string; diffs: readonly string[] }[];
  /** Steps marked `awaits`: differences expected until a fix elsewhere lands, or agreeing already. */
  readonly awaited: readonly { step: string; reason: string; diffs: readonly string[] }[];
  readonly error?: string;
  readonly seconds: number;
}

/** What a fixture worker is compiled with when its area brings no tsconfig: no path mappings. */
const AREA_TSCONFIG = { compilerOptions: { target: 'ES2022', module: 'ES2022', moduleResolution: 'bundler', strict: true } };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Loads an area's script: area.ts bundled with esbuild (its imports resolve from the checkout) and
 * required. It exports one `area`, or `areas` (several workers run from one folder's script).
 */
async function loadAreas(root: string, areaDir: string): Promise<Area[]> {
  const outfile = path.join(root, 'out', 'differential', 'scripts', `${path.basename(areaDir)}.cjs`);
  await esbuild.build({ entryPoints: [path.join(areaDir, 'area.ts')], bundle: true, platform: 'node', format: 'cjs', outfile, packages: 'external', logLevel: 'warning' });
  delete require.cache[outfile];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(outfile) as { default?: Area; area?: Area; areas?: Area[] };
  const areas = loaded.areas ?? [loaded.area ?? loaded.default];
  if (areas.length === 0 || areas.some((area) => !area || !Array.isArray(area.steps))) throw new Error(`${areaDir}/area.ts exports no Area (export const area: Area = …, or areas: Area[])`);
  return areas as Area[];
}

/** The worker's entry (`main`) from the config wrangler dev would read. */
function entryOf(config: string): string {
  const text = fs.readFileSync(config, 'utf8');
  const raw = (config.endsWith('.toml') ? parseToml(text) : JSON.parse(stripJsonc(text))) as { main?: unknown };
  if (typeof raw.main !== 'string') throw new Error(`${config} has no "main"`);
  return path.resolve(path.dirname(config), raw.main);
}

/**
 * wrangler dev restarts its worker when its file watcher sees a write in the area's folder (the
 * other runtime's bundling, the first `.wrangler/` state), and answers a request caught by the
 * restart with its own 503. That is the oracle's hiccup, not the platform's answer: asked again,
 * once, after it settles.
 */
async function oracleHttp(origin: string, step: HttpStep, earlier: Answers): Promise<Observation> {
  const first = await sendHttp(origin, step, earlier);
  if (first.kind !== 'http' || first.status !== 503 || !first.body.startsWith('Your worker restarted mid-request')) return first;
  await sleep(500);
  return sendHttp(origin, step, earlier);
}

/** One runtime as the steps see it: where it answers, what it logged, and its answers so far. */
interface Side {
  readonly origin: string;
  readonly output: () => string;
  readonly answers: Map<string, string>;
}

function side(runtime: RunningRuntime): Side {
  return { origin: runtime.origin, output: runtime.output, answers: new Map() };
}

/** Keeps an HTTP answer's body under the step's name, for later steps' paths. */
function remember(to: Side, name: string, observed: Observation): Observation {
  if (observed.kind === 'http') to.answers.set(name, observed.body);
  return observed;
}

/** One step against both runtimes at once; undefined when the step compares nothing (a wait). */
async function runStep(step: Step, oracle: Side, hookbench: Side): Promise<string[] | undefined> {
  const both = <T>(fn: (to: Side) => Promise<T>) => Promise.all([fn(oracle), fn(hookbench)]);
  switch (step.kind) {
    case 'wait':
      await sleep(step.ms);
      return undefined;
    case 'ws': {
      const [a, b] = await both((to) => exchangeWebSocket(to.origin, step));
      return compareWebSocket(a, b, step);
    }
    case 'poll': {
      const [a, b] = await both(async (to) => remember(to, step.name, await poll(to.origin, step, sleep, to.answers)));
      return compareHttp(a, b, step.step.compare);
    }
    case 'log': {
      const [a, b] = await both((to) => awaitLog(to.output, step, sleep));
      return compareLog(a, b);
    }
    case 'burst': {
      // Each runtime gets its burst whole; the two bursts go out side by side, as every step's do.
      const [a, b] = await both((to) => Promise.all(step.steps.map((one) => sendHttp(to.origin, one, to.answers))));
      return step.steps.flatMap((one, i) => compareHttp(a[i]!, b[i]!, one.compare).map((diff) => `${one.name}: ${diff}`));
    }
    default: {
      const [a, b] = await Promise.all([
        oracleHttp(oracle.origin, step, oracle.answers).then((observed) => remember(oracle, step.name, observed)),
        sendHttp(hookbench.origin, step, hookbench.answers).then((observed) => remember(hookbench, step.name, observed)),
      ]);
      return compareHttp(a, b, step.compare);
    }
  }
}

/**
 * Where the tools are: wrangler's bin script, the oracle's node_modules (the real `agents`),
 * dist/cli.js, and the node_modules of the areas whose folder has a package.json of its own, by folder.
 */
interface Tools {
  readonly wrangler: string;
  readonly modules: string;
  readonly cli: string;
  readonly areaModules: Readonly<Record<string, string>>;
}

/**
 * The area's working copy: wrangler writes .wrangler/ beside its config. Its node_modules is the
 * oracle's, where the worker's imports (the real `agents` and its peers) resolve, or the area's
 * own packages when it has some; Hookbench resolves `agents` to its emulation whatever it holds.
 */
function workingCopy(root: string, area: Area, tools: Tools): string {
  const folder = path.join(root, 'out', 'differential', 'work', area.name.replace(/[^\w-]+/g, '_'));
  fs.rmSync(folder, { recursive: true, force: true });
  const modules = tools.areaModules[area.folder];
  if (area.prepare && !modules) throw new Error(`area ${area.name} is prepared from its own packages, and none were installed for ${area.folder} (npm run test:differential installs them)`);
  if (area.prepare) {
    fs.mkdirSync(folder, { recursive: true });
    area.prepare(folder, { modules: modules!, oracleModules: tools.modules });
  } else {
    const source = path.resolve(root, 'test', 'differential', 'areas', area.folder);
    fs.cpSync(source, folder, { recursive: true, filter: (file) => !file.includes(`${path.sep}.wrangler`) && !file.includes(`${path.sep}node_modules`) });
  }
  fs.symlinkSync(modules ?? tools.modules, path.join(folder, 'node_modules'), 'dir');
  return folder;
}

async function runArea(root: string, area: Area, tools: Tools): Promise<AreaResult> {
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  const folder = workingCopy(root, area, tools);
  // The checkout's tsconfig maps `agents` to the emulation (for type checking); wrangler's
  // bundler honours the nearest tsconfig's paths, so the copy gets one of its own.
  if (!fs.existsSync(path.join(folder, 'tsconfig.json'))) fs.writeFileSync(path.join(folder, 'tsconfig.json'), `${JSON.stringify(AREA_TSCONFIG, null, 2)}\n`);
  const config = findWranglerConfig(folder);
  if (!config || path.dirname(config) !== folder) return { name: area.name, steps: area.steps.length, agreed: 0, differed: [], awaited: [], error: `no wrangler config in ${area.prepare ? folder : path.resolve(root, 'test', 'differential', 'areas', area.folder)}`, seconds: seconds() };
  const scratch = scratchFolder(area.name);
  const options = { folder, config, entry: entryOf(config), flags: area.flags ?? [], scratch };
  const runtimes: RunningRuntime[] = [];
  try {
    const [oracle, hookbench] = await Promise.allSettled([startOracle(tools.wrangler, options), startHookbench(tools.cli, options, area.hookbenchFlags ?? [])]);
    for (const started of [oracle, hookbench]) if (started.status === 'fulfilled') runtimes.push(started.value);
    const failed = [oracle, hookbench].filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (oracle.status !== 'fulfilled' || hookbench.status !== 'fulfilled') {
      return { name: area.name, steps: area.steps.length, agreed: 0, differed: [], awaited: [], error: failed.map((f) => (f.reason as Error).message).join('\n'), seconds: seconds() };
    }
    const differed: { step: string; diffs: string[] }[] = [];
    const awaited: { step: string; reason: string; diffs: string[] }[] = [];
    let compared = 0;
    const [oracleSide, hookbenchSide] = [side(oracle.value), side(hookbench.value)];
    for (const step of area.steps) {
      const diffs = await runStep(step, oracleSide, hookbenchSide);
      if (diffs === undefined) continue;
      compared++;
      const reason = 'awaits' in step ? step.awaits : undefined;
      if (reason !== undefined) awaited.push({ step: step.name, reason, diffs });
      else if (diffs.length > 0) differed.push({ step: step.name, diffs });
    }
    if (process.env['HOOKBENCH_DIFFERENTIAL_LOGS'] === '1') {
      for (const runtime of runtimes) process.stdout.write(`  --- ${runtime.name} output ---\n${tail(runtime.output(), 200)}\n`);
    }
    return { name: area.name, steps: compared, agreed: compared - differed.length - awaited.filter((a) => a.diffs.length > 0).length, differed, awaited, seconds: seconds() };
  } finally {
    await Promise.all(runtimes.map((runtime) => runtime.stop()));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function report(result: AreaResult): void {
  const waiting = result.awaited.filter((a) => a.diffs.length > 0).length;
  const figures = `${result.steps} steps, ${result.agreed} agreed, ${result.differed.length} differed${waiting ? `, ${waiting} awaited` : ''}`;
  process.stdout.write(`${result.error || result.differed.length ? '✘' : '✔'} ${result.name}: ${result.error ? 'could not run' : figures} (${result.seconds.toFixed(1)} s)\n`);
  if (result.error) process.stdout.write(`${result.error.split('\n').map((line) => `    ${line}`).join('\n')}\n`);
  for (const { step, diffs } of result.differed) {
    process.stdout.write(`    ${step}\n${diffs.map((diff) => `      ${diff}`).join('\n')}\n`);
  }
  for (const { step, reason, diffs } of result.awaited) {
    const note = diffs.length ? `differs until: ${reason}` : `agrees now: drop its awaits (${reason})`;
    process.stdout.write(`    ${step} — ${note}\n${diffs.map((diff) => `      ${diff}`).join('\n')}${diffs.length ? '\n' : ''}`);
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { root: { type: 'string' }, wrangler: { type: 'string' }, 'oracle-modules': { type: 'string' }, 'area-modules': { type: 'string' }, cli: { type: 'string' } } });
  const root = path.resolve(values.root ?? '.');
  const wrangler = values.wrangler;
  const cli = values.cli ?? path.join(root, 'dist', 'cli.js');
  const modules = values['oracle-modules'];
  const areaModules = JSON.parse(values['area-modules'] ?? '{}') as Record<string, string>;
  if (!wrangler || !modules) throw new Error('--wrangler <wrangler.js> and --oracle-modules <node_modules> are required (npm run test:differential installs them)');
  const areasDir = path.join(root, 'test', 'differential', 'areas');
  const wanted = process.env['HOOKBENCH_AREA']?.split(',').map((name) => name.trim()).filter(Boolean);
  const folders = fs.existsSync(areasDir) ? fs.readdirSync(areasDir).filter((name) => fs.existsSync(path.join(areasDir, name, 'area.ts'))).sort() : [];
  // `folder:area` names one of the areas a folder's script exports.
  const folderOf = (name: string) => name.split(':')[0]!;
  const chosen = wanted ? folders.filter((name) => wanted.some((one) => folderOf(one) === name)) : folders;
  const unknown = (wanted ?? []).filter((name) => !folders.includes(folderOf(name)));
  const runs = (area: Area) => !wanted || wanted.includes(area.folder) || wanted.includes(area.name);
  if (unknown.length) throw new Error(`HOOKBENCH_AREA names no area: ${unknown.join(', ')} (areas: ${folders.join(', ') || 'none'})`);
  if (chosen.length === 0) throw new Error(`no areas under ${areasDir}`);
  const started = Date.now();
  const results: AreaResult[] = [];
  const failedArea = (name: string) => (error: Error): AreaResult => ({ name, steps: 0, agreed: 0, differed: [], awaited: [], error: error.stack ?? error.message, seconds: 0 });
  const done = (result: AreaResult) => {
    report(result);
    results.push(result);
  };
  for (const name of chosen) {
    const areas = await loadAreas(root, path.join(areasDir, name)).catch((error: Error) => done(failedArea(name)(error)));
    for (const area of (areas ?? []).filter(runs)) done(await runArea(root, area, { wrangler, modules, cli, areaModules }).catch(failedArea(area.name)));
  }
  const steps = results.reduce((n, r) => n + r.steps, 0);
  const agreed = results.reduce((n, r) => n + r.agreed, 0);
  const differed = results.reduce((n, r) => n + r.differed.length, 0);
  const awaited = steps - agreed - differed;
  const broken = results.filter((r) => r.error).length;
  process.stdout.write(`\n${results.length} areas, ${steps} steps, ${agreed} agreed, ${differed} differed${awaited ? `, ${awaited} awaited (a fix elsewhere)` : ''}${broken ? `, ${broken} areas could not run` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return differed === 0 && broken === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`✘ ${error.message}\n`);
    process.exit(1);
  },
);
