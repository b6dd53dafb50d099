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
import { compareHttp, compareLog, compareWebSocket, stalled, type Observation } from './compare';
import { awaitLog, exchangeWebSocket, poll, sendHttp } from './drive';
import { scratchFolder, startHookbench, startOracle, tail, type RunningRuntime } from './runtimes';
import type { Answers, Area, HttpStep, Step } from './step';
import { findWranglerConfig, stripJsonc } from '../../src/core/workerConfig/wranglerConfig';
import { parse as parseToml } from 'smol-toml';

interface AreaResult {
  readonly name: string;
  readonly steps: number;
  readonly agreed: number;
  readonly differed: readonly { step: string; diffs: readonly string[] }[];
  /** Steps marked `awaits`: differences expected until a fix elsewhere lands, or agreeing already. */
  readonly awaited: readonly { step: string; reason: string; diffs: readonly string[] }[];
  /** Steps the oracle answered only when asked a second time (on a fresh wrangler dev). */
  readonly askedTwice?: number;
  /** Steps the oracle answered neither time: not compared, listed apart from differences. */
  readonly unanswered?: readonly string[];
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
  await esbuild.build({
    entryPoints: [path.join(areaDir, 'area.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    packages: 'external',
    logLevel: 'warning',
  });
  delete require.cache[outfile];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(outfile) as { default?: Area; area?: Area; areas?: Area[] };
  const areas = loaded.areas ?? [loaded.area ?? loaded.default];
  if (areas.length === 0 || areas.some((area) => !area || !Array.isArray(area.steps)))
    throw new Error(`${areaDir}/area.ts exports no Area (export const area: Area = …, or areas: Area[])`);
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

/** What one runtime answered to a step: one observation, several (a burst), none (a wait). */
type Observed = Observation | readonly Observation[] | undefined;

/** Carries out a step against one runtime, keeping its HTTP answers for later steps' paths. */
async function observe(step: Step, to: Side, oracle: boolean): Promise<Observed> {
  switch (step.kind) {
    case 'wait':
      await sleep(step.ms);
      return undefined;
    case 'ws':
      return exchangeWebSocket(to.origin, step);
    case 'poll':
      return remember(to, step.name, await poll(to.origin, step, sleep, to.answers));
    case 'log':
      return awaitLog(to.output, step, sleep);
    case 'burst':
      // Every request of the burst is written before any answer is read.
      return Promise.all(step.steps.map((one) => sendHttp(to.origin, one, to.answers)));
    default:
      return remember(to, step.name, await (oracle ? oracleHttp(to.origin, step, to.answers) : sendHttp(to.origin, step, to.answers)));
  }
}

/** The differences between the two runtimes' answers to a step, as the step says to compare. */
function compareStep(step: Step, a: Observed, b: Observed): string[] {
  switch (step.kind) {
    case 'wait':
      return [];
    case 'ws':
      return compareWebSocket(a as Observation, b as Observation, step);
    case 'poll':
      return compareHttp(a as Observation, b as Observation, step.step.compare);
    case 'log':
      return compareLog(a as Observation, b as Observation);
    case 'burst': {
      const [left, right] = [a as readonly Observation[], b as readonly Observation[]];
      return step.steps.flatMap((one, i) => compareHttp(left[i]!, right[i]!, one.compare).map((diff) => `${one.name}: ${diff}`));
    }
    default:
      return compareHttp(a as Observation, b as Observation, step.compare);
  }
}

/**
 * The oracle, restartable: wrangler dev now and then answers nothing for a step (no response in
 * 15 s) while it is otherwise healthy. Such a step is asked again of a fresh wrangler dev on a
 * fresh state that has first been given every step before it, in order: an area's steps build on
 * what the earlier ones left (stored rows, in-memory maps, schedules, sockets' effects), so only
 * the same history makes the second answer the one the first should have been. Hookbench's
 * answer is kept from the first ask: its stall is a failure like any other difference.
 */
class Oracle {
  private restarts = 0;
  private current: RunningRuntime;
  side: Side;

  constructor(
    first: RunningRuntime,
    private readonly start: (scratch: string) => Promise<RunningRuntime>,
    private readonly scratch: string,
  ) {
    this.current = first;
    this.side = side(first);
  }

  get runtime(): RunningRuntime {
    return this.current;
  }

  /** A fresh oracle brought to the state before `steps[index]`, then asked that step once more. */
  async askAgain(steps: readonly Step[], index: number): Promise<Observed> {
    await this.current.stop();
    const fresh = path.join(this.scratch, `oracle-restart-${++this.restarts}`);
    fs.mkdirSync(fresh, { recursive: true });
    this.current = await this.start(fresh);
    this.side = side(this.current);
    for (const earlier of steps.slice(0, index)) await observe(earlier, this.side, true);
    return observe(steps[index]!, this.side, true);
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
  if (area.prepare) {
    fs.mkdirSync(folder, { recursive: true });
    area.prepare(folder, { modules: modules ?? tools.modules, oracleModules: tools.modules });
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
  if (!config || path.dirname(config) !== folder)
    return {
      name: area.name,
      steps: area.steps.length,
      agreed: 0,
      differed: [],
      awaited: [],
      error: `no wrangler config in ${area.prepare ? folder : path.resolve(root, 'test', 'differential', 'areas', area.folder)}`,
      seconds: seconds(),
    };
  const scratch = scratchFolder(area.name);
  const options = { folder, config, entry: entryOf(config), flags: area.flags ?? [], scratch };
  const runtimes: RunningRuntime[] = [];
  let restartable: Oracle | undefined;
  try {
    const [oracle, hookbench] = await Promise.allSettled([startOracle(tools.wrangler, options), startHookbench(tools.cli, options, area.hookbenchFlags ?? [])]);
    for (const started of [oracle, hookbench]) if (started.status === 'fulfilled') runtimes.push(started.value);
    const failed = [oracle, hookbench].filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (oracle.status !== 'fulfilled' || hookbench.status !== 'fulfilled') {
      return {
        name: area.name,
        steps: area.steps.length,
        agreed: 0,
        differed: [],
        awaited: [],
        error: failed.map((f) => (f.reason as Error).message).join('\n'),
        seconds: seconds(),
      };
    }
    const differed: { step: string; diffs: string[] }[] = [];
    const awaited: { step: string; reason: string; diffs: string[] }[] = [];
    const unanswered: string[] = [];
    let compared = 0;
    let askedTwice = 0;
    restartable = new Oracle(oracle.value, (fresh) => startOracle(tools.wrangler, { ...options, scratch: fresh }), scratch);
    const hookbenchSide = side(hookbench.value);
    for (const [index, step] of area.steps.entries()) {
      const [first, b] = await Promise.all([observe(step, restartable.side, true), observe(step, hookbenchSide, false)]);
      let a = first;
      if (step.kind === 'wait') continue;
      if (stalled(a!)) {
        askedTwice++;
        a = await restartable.askAgain(area.steps, index);
        if (stalled(a!)) {
          unanswered.push(step.name);
          // Hookbench answering nothing is a failure whatever the oracle did.
          if (stalled(b!)) {
            compared++;
            differed.push({ step: step.name, diffs: ['hookbench answered nothing either (no answer in 15 s)'] });
          }
          continue;
        }
      }
      compared++;
      const diffs = compareStep(step, a, b);
      const reason = 'awaits' in step ? step.awaits : undefined;
      if (reason !== undefined) awaited.push({ step: step.name, reason, diffs });
      else if (diffs.length > 0) differed.push({ step: step.name, diffs });
    }
    if (process.env['HOOKBENCH_DIFFERENTIAL_LOGS'] === '1') {
      for (const runtime of [restartable.runtime, hookbench.value]) process.stdout.write(`  --- ${runtime.name} output ---\n${tail(runtime.output(), 200)}\n`);
    }
    return {
      name: area.name,
      steps: compared,
      agreed: compared - differed.length - awaited.filter((a) => a.diffs.length > 0).length,
      differed,
      awaited,
      askedTwice,
      unanswered,
      seconds: seconds(),
    };
  } finally {
    // The oracle may have been restarted: stop the one running now (stopping twice is harmless).
    await Promise.all([...runtimes, ...(restartable ? [restartable.runtime] : [])].map((runtime) => runtime.stop()));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function report(result: AreaResult): void {
  const waiting = result.awaited.filter((a) => a.diffs.length > 0).length;
  const twice = result.askedTwice ? `, ${result.askedTwice} asked of the oracle twice` : '';
  const silent = result.unanswered?.length ? `, ${result.unanswered.length} the oracle did not answer` : '';
  const figures = `${result.steps} steps, ${result.agreed} agreed, ${result.differed.length} differed${waiting ? `, ${waiting} awaited` : ''}${twice}${silent}`;
  process.stdout.write(
    `${result.error || result.differed.length ? '✘' : '✔'} ${result.name}: ${result.error ? 'could not run' : figures} (${result.seconds.toFixed(1)} s)\n`,
  );
  if (result.error)
    process.stdout.write(
      `${result.error
        .split('\n')
        .map((line) => `    ${line}`)
        .join('\n')}\n`,
    );
  for (const step of result.unanswered ?? [])
    process.stdout.write(`    ${step}: oracle did not answer (twice, the second time on a fresh wrangler dev); not compared\n`);
  for (const { step, diffs } of result.differed) {
    process.stdout.write(`    ${step}\n${diffs.map((diff) => `      ${diff}`).join('\n')}\n`);
  }
  for (const { step, reason, diffs } of result.awaited) {
    const note = diffs.length ? `differs until: ${reason}` : `agrees now: drop its awaits (${reason})`;
    process.stdout.write(`    ${step} — ${note}\n${diffs.map((diff) => `      ${diff}`).join('\n')}${diffs.length ? '\n' : ''}`);
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      root: { type: 'string' },
      wrangler: { type: 'string' },
      'oracle-modules': { type: 'string' },
      'area-modules': { type: 'string' },
      cli: { type: 'string' },
    },
  });
  const root = path.resolve(values.root ?? '.');
  const wrangler = values.wrangler;
  const cli = values.cli ?? path.join(root, 'dist', 'cli.js');
  const modules = values['oracle-modules'];
  const areaModules = JSON.parse(values['area-modules'] ?? '{}') as Record<string, string>;
  if (!wrangler || !modules)
    throw new Error('--wrangler <wrangler.js> and --oracle-modules <node_modules> are required (npm run test:differential installs them)');
  const areasDir = path.join(root, 'test', 'differential', 'areas');
  const wanted = process.env['HOOKBENCH_AREA']
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const folders = fs.existsSync(areasDir)
    ? fs
        .readdirSync(areasDir)
        .filter((name) => fs.existsSync(path.join(areasDir, name, 'area.ts')))
        .sort()
    : [];
  // `folder:area` names one of the areas a folder's script exports.
  const folderOf = (name: string) => name.split(':')[0]!;
  const chosen = wanted ? folders.filter((name) => wanted.some((one) => folderOf(one) === name)) : folders;
  const unknown = (wanted ?? []).filter((name) => !folders.includes(folderOf(name)));
  const runs = (area: Area) => !wanted || wanted.includes(area.folder) || wanted.includes(area.name);
  if (unknown.length) throw new Error(`HOOKBENCH_AREA names no area: ${unknown.join(', ')} (areas: ${folders.join(', ') || 'none'})`);
  if (chosen.length === 0) throw new Error(`no areas under ${areasDir}`);
  const started = Date.now();
  const results: AreaResult[] = [];
  const failedArea =
    (name: string) =>
    (error: Error): AreaResult => ({ name, steps: 0, agreed: 0, differed: [], awaited: [], error: error.stack ?? error.message, seconds: 0 });
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
  const twice = results.reduce((n, r) => n + (r.askedTwice ?? 0), 0);
  const silent = results.reduce((n, r) => n + (r.unanswered?.length ?? 0), 0);
  const retries = `; ${twice} step${twice === 1 ? '' : 's'} needed a second ask of the oracle${silent ? `, ${silent} the oracle did not answer (not compared)` : ''}`;
  process.stdout.write(
    `\n${results.length} areas, ${steps} steps, ${agreed} agreed, ${differed} differed${awaited ? `, ${awaited} awaited (a fix elsewhere)` : ''}${broken ? `, ${broken} areas could not run` : ''}${retries} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return differed === 0 && broken === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`✘ ${error.message}\n`);
    process.exit(1);
  },
);
