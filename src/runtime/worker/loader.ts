/**
 * Bundles a user's worker with esbuild and evaluates it with `agents` and `cloudflare:workers`
 * resolved to the emulation, every other import resolved as the user's project resolves it.
 * TypeScript and both decorator forms are handled by esbuild.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vm from 'node:vm';
import type { SourceMapPayload } from 'node:module';
import type * as esbuildType from 'esbuild';
import type { ModuleRule } from '../../core/workerConfig/moduleRules';
import { moduleRulesPlugin, RULE_NAMESPACE } from './moduleRules';
import type { WorkerProblem } from '../../core/contract/workerProblems';
import { inlineSourceMap } from './sourceStacks';
import { unemulatedCallMessage, unemulatedModuleMessage } from '../../core/workerConfig/support';

export interface Bundle {
  readonly code: string;
  /** Absolute paths of the source files, for reloading when they change. */
  readonly inputs: readonly string[];
  /** An ES module (a user's worker, top-level await allowed) or CommonJS (the built-in worker). */
  readonly format: 'esm' | 'cjs';
  /** The bundle's source map, its sources absolute: stacks name the user's files with it. */
  readonly sourceMap?: SourceMapPayload;
}

/** Modules the runtime provides instead of the real packages. */
export type ProvidedModules = Readonly<Record<string, unknown>>;

/** What a build needs besides the entry: the globals the runtime replaces, the module rules. */
export interface BuildSettings {
  /** Names of the globals the worker's code sees as the runtime's own (`Response`, `crypto`, …). */
  readonly globals: readonly string[];
  /** The wrangler config's `rules` (the defaults are always added). */
  readonly rules?: readonly ModuleRule[];
}

const PROVIDED = /^(agents(\/.*)?|cloudflare:.*)$/;

/**
 * The one free name the bundle reads its load from: the globals, the provided modules, `require`.
 * No worker declares it, and esbuild renames any top-level name that would shadow it.
 */
const LOAD = '__hookbench_worker__';
const LOADS = Symbol.for('hookbench.workerLoads');

interface Load {
  readonly globals: Readonly<Record<string, unknown>>;
  provided(id: string): unknown;
  readonly require: (id: string) => unknown;
  readonly filename: string;
  readonly dirname: string;
}

function loads(): Map<string, Load> {
  const registry = globalThis as unknown as Record<symbol, Map<string, Load> | undefined>;
  return (registry[LOADS] ??= new Map());
}

function options(entry: string, settings: BuildSettings): esbuildType.BuildOptions & { write: false; metafile: true } {
  // Free references to the runtime's globals read them from the load; a worker's own binding of
  // the same name (`import crypto from 'node:crypto'`) is left alone, as esbuild's define does.
  const define: Record<string, string> = { __filename: `${LOAD}.filename`, __dirname: `${LOAD}.dirname`, require: `${LOAD}.require` };
  for (const name of settings.globals) if (/^[A-Za-z_$][\w$]*$/.test(name)) define[name] = `${LOAD}.globals.${name}`;
  return {
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    conditions: ['workerd', 'worker'],
    sourcemap: 'inline',
    // Stacks need the positions only; the sources are on disk.
    sourcesContent: false,
    logLevel: 'silent',
    define,
    plugins: [
      {
        name: 'hookbench-provided',
        setup(build) {
          build.onResolve({ filter: PROVIDED }, (args) => ({ path: args.path, namespace: 'hookbench-provided' }));
          // CommonJS-shaped, so any named import is read from the module the runtime provides.
          build.onLoad({ filter: /.*/, namespace: 'hookbench-provided' }, (args) => ({
            contents: `module.exports = ${LOAD}.provided(${JSON.stringify(args.path)});`,
            loader: 'js',
          }));
        },
      },
      moduleRulesPlugin(settings.rules ?? []),
    ],
  };
}

function toBundle(result: esbuildType.BuildResult<{ write: false; metafile: true }>): Bundle {
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output');
  // Files a module rule loaded are named `hookbench-module:<path>`; provided modules are no files.
  const inputs = Object.keys(result.metafile.inputs).flatMap((input) => {
    if (input.startsWith(`${RULE_NAMESPACE}:`)) return [path.resolve(input.slice(RULE_NAMESPACE.length + 1))];
    return /^[\w-]{2,}:/.test(input) ? [] : [path.resolve(input)];
  });
  // esbuild names the map's sources relative to its working directory, ours.
  const sourceMap = inlineSourceMap(file.text, process.cwd());
  return { code: file.text, inputs, format: 'esm', ...(sourceMap ? { sourceMap } : {}) };
}

/** The worker did not build: esbuild's errors, each with its place in the user's sources. */
export class WorkerBuildError extends Error {
  override readonly name = 'WorkerBuildError';

  constructor(
    message: string,
    readonly problems: readonly WorkerProblem[],
  ) {
    super(message);
  }
}

/** One line: the first error's place and text (and how many more), never esbuild's whole report. */
function buildError(entry: string, error: unknown): WorkerBuildError {
  const failure = error as { errors?: esbuildType.Message[] };
  const problems: WorkerProblem[] = failure.errors?.length
    ? failure.errors.map((e) => ({
        kind: 'build',
        message: e.text,
        // esbuild's columns count from 0; editors and stacks count from 1.
        ...(e.location ? { location: { file: path.resolve(e.location.file), line: e.location.line, column: e.location.column + 1 } } : {}),
      }))
    : [{ kind: 'build', message: String((error as Error).message) }];
  // The line names the file as esbuild did: relative to its working directory, ours.
  const [first, ...more] = problems as [WorkerProblem, ...WorkerProblem[]];
  const where = first.location ? `${path.relative(process.cwd(), first.location.file)}:${first.location.line}:${first.location.column}: ` : '';
  const detail = `${where}${first.message.split('\n')[0]}`;
  const others = more.length > 0 ? ` (and ${more.length} more error${more.length === 1 ? '' : 's'})` : '';
  return new WorkerBuildError(`cannot build ${entry}: ${detail}${others}`, problems);
}

export async function bundleWorker(esbuild: typeof esbuildType, entry: string, settings: BuildSettings): Promise<Bundle> {
  try {
    return toBundle(await esbuild.build(options(entry, settings)));
  } catch (error) {
    throw buildError(entry, error);
  }
}

/**
 * Rebuilds whenever a source file changes and hands each good bundle (or the build error) to
 * `onBuild`. Dispose the result to stop watching.
 */
export async function watchWorker(
  esbuild: typeof esbuildType,
  entry: string,
  settings: BuildSettings,
  onBuild: (result: Bundle | WorkerBuildError) => void,
): Promise<{ dispose(): Promise<void> }> {
  const base = options(entry, settings);
  const context = await esbuild.context({
    ...base,
    plugins: [
      ...(base.plugins ?? []),
      {
        name: 'hookbench-reload',
        setup(build) {
          build.onEnd((result) => {
            if (result.errors.length > 0) onBuild(buildError(entry, result));
            else onBuild(toBundle(result as esbuildType.BuildResult<{ write: false; metafile: true }>));
          });
        },
      },
    ],
  });
  await context.watch();
  return { dispose: () => context.dispose() };
}

/** The worker's code without its inline source map, for the checks that read it. */
function withoutSourceMap(code: string): string {
  return code.replace(/\n\/\/# sourceMappingURL=.*$/s, '');
}

/** `require` as the project resolves it, with the provided modules and their refusals. */
function projectRequire(entry: string, provided: ProvidedModules): (id: string) => unknown {
  const fromProject = createRequire(entry);
  return (id: string): unknown => {
    if (id in provided) return provided[id];
    if (PROVIDED.test(id)) throw new Error(unemulatedModuleMessage(id));
    return fromProject(id);
  };
}

/**
 * Told, before a bundle's code runs, the name its stack frames will carry and how many lines the
 * evaluator put before the bundle's first: what a source map of it is registered under.
 */
export type OnScript = (name: string, lineOffset: number) => void;

/** Lines the CommonJS evaluator puts before the bundle's first line: its function header. */
const EVALUATED_LINE_OFFSET = 1;
/** CommonJS bundles run so far: each gets a script name of its own (a reload's frames map with its own map). */
let evaluated = 0;

/**
 * Runs a bundle and returns its exports: an ES module is imported (its top-level await settles
 * first), a CommonJS one (the built-in worker) run in a function. `globals` are what the worker's
 * code sees instead of the process's own (the Workers `Response`, `WebSocketPair`, gated `crypto`).
 */
export async function evaluateWorker(
  bundle: Bundle,
  entry: string,
  provided: ProvidedModules,
  globals: Readonly<Record<string, unknown>> = {},
  onScript?: OnScript,
): Promise<Record<string, unknown>> {
  // The worker's own code (the SDK is provided, never bundled).
  const agent = (provided['agents'] as { Agent?: { prototype: Record<string, unknown> } } | undefined)?.Agent?.prototype;
  const refusal = unemulatedCallMessage(withoutSourceMap(bundle.code), (method) => typeof agent?.[method] === 'function');
  if (refusal) throw new Error(refusal);
  const require = projectRequire(entry, provided);
  if (bundle.format === 'esm')
    return importWorker(bundle.code, { globals, provided: require, require, filename: entry, dirname: path.dirname(entry) }, onScript);
  const module = { exports: {} as Record<string, unknown> };
  const names = Object.keys(globals).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  const fileName = `${entry} (build ${++evaluated})`;
  onScript?.(fileName, EVALUATED_LINE_OFFSET);
  const wrapper = vm.runInThisContext(
    `(function (exports, require, module, __filename, __dirname${names.map((n) => ', ' + n).join('')}) {\n${bundle.code}\n})`,
    { filename: fileName },
  );
  wrapper(module.exports, require, module, entry, path.dirname(entry), ...names.map((name) => globals[name]));
  return module.exports;
}

/**
 * `import()` through Node's own loader: the serve process's code is compiled from a code cache,
 * which gives its functions no dynamic import of their own.
 */
const importThroughMainLoader = vm.runInThisContext('(url) => import(url)', { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }) as (
  url: string,
) => Promise<Record<string, unknown>>;

/**
 * The import, without the one-line notice Node 20 prints to stderr the first time that loader is
 * used (it calls `process.emitWarning` synchronously, inside the call): a serve start stays the
 * lines its contract names.
 */
function importModule(url: string): Promise<Record<string, unknown>> {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (!String(typeof warning === 'string' ? warning : warning.message).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER'))
      (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return importThroughMainLoader(url);
  } finally {
    process.emitWarning = emit;
  }
}

/** Imports an ES module bundle from a private temp file, handing it its load under a fresh id. */
async function importWorker(code: string, load: Load, onScript?: OnScript): Promise<Record<string, unknown>> {
  const id = randomUUID();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-worker-'));
  const file = path.join(dir, `${path.basename(load.filename).replace(/\.[^.]*$/, '')}.mjs`);
  fs.writeFileSync(file, `const ${LOAD} = globalThis[Symbol.for('hookbench.workerLoads')].get(${JSON.stringify(id)});${code}`, { mode: 0o600 });
  loads().set(id, load);
  // The module's frames carry its URL; its load is on the bundle's first line, before its code.
  onScript?.(pathToFileURL(file).href, 0);
  try {
    return { ...(await importModule(pathToFileURL(file).href)) };
  } finally {
    loads().delete(id);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
