/**
 * Bundles a user's worker with esbuild and evaluates it with `agents` and `cloudflare:workers`
 * resolved to the emulation, every other import resolved as the user's project resolves it.
 * TypeScript and both decorator forms are handled by esbuild.
 */
import { createRequire, isBuiltin } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import type { SourceMapPayload } from 'node:module';
import type * as esbuildType from 'esbuild';
import type { WorkerProblem } from '../../contract/workerProblems';
import { inlineSourceMap } from './sourceStacks';
import { unemulatedCallMessage, unemulatedModuleMessage } from './support';

export interface Bundle {
  readonly code: string;
  /** Absolute paths of the source files, for reloading when they change. */
  readonly inputs: readonly string[];
  /** The bundle's source map, its sources absolute: stacks name the user's files with it. */
  readonly sourceMap?: SourceMapPayload;
}

/** Modules the runtime provides instead of the real packages. */
export type ProvidedModules = Readonly<Record<string, unknown>>;

const PROVIDED = /^(agents(\/.*)?|cloudflare:.*)$/;

function options(entry: string): esbuildType.BuildOptions & { write: false; metafile: true } {
  return {
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: 'cjs',
    platform: 'node',
    target: 'es2022',
    conditions: ['workerd', 'worker'],
    sourcemap: 'inline',
    // Stacks need the positions only; the sources are on disk.
    sourcesContent: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'hookbench-provided',
        setup(build) {
          build.onResolve({ filter: PROVIDED }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  };
}

function toBundle(result: esbuildType.BuildResult<{ write: false; metafile: true }>): Bundle {
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output');
  // esbuild names inputs and the map's sources relative to its working directory, ours.
  const inputs = Object.keys(result.metafile.inputs).map((input) => path.resolve(input));
  const sourceMap = inlineSourceMap(file.text, process.cwd());
  return { code: file.text, inputs, ...(sourceMap ? { sourceMap } : {}) };
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

function buildError(entry: string, error: unknown): WorkerBuildError {
  const failure = error as { errors?: esbuildType.Message[] };
  const problems: WorkerProblem[] = failure.errors?.length
    ? failure.errors.map((e) => ({
        kind: 'build',
        message: e.text,
        // esbuild's columns count from 0; editors and stacks count from 1.
        ...(e.location ? { location: { file: path.resolve(e.location.file), line: e.location.line, column: e.location.column + 1 } } : {}),
      }))
    : [{ kind: 'build', message: (error as Error).message }];
  const detail = problems.map((p) => `${p.location ? `${p.location.file}:${p.location.line}:${p.location.column}: ` : ''}${p.message}`).join('\n');
  return new WorkerBuildError(`cannot build ${entry}:\n${detail}`, problems);
}

export async function bundleWorker(esbuild: typeof esbuildType, entry: string): Promise<Bundle> {
  try {
    return toBundle(await esbuild.build(options(entry)));
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
  onBuild: (result: Bundle | WorkerBuildError) => void,
): Promise<{ dispose(): Promise<void> }> {
  const base = options(entry);
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

/** Lines `evaluateWorker` puts before the bundle's first line: its function header. */
export const EVALUATED_LINE_OFFSET = 1;

/**
 * Runs a bundle as a CommonJS module and returns its exports. `globals` shadow the process's own
 * for the worker's code only (the Workers `Response`, `WebSocketPair`). `fileName` names the
 * script in stack traces (the entry's path by default).
 */
export function evaluateWorker(bundle: Bundle, entry: string, provided: ProvidedModules, globals: Readonly<Record<string, unknown>> = {}, fileName = entry): Record<string, unknown> {
  // The worker's own code (the SDK is provided, never bundled), without its inline source map.
  const agent = (provided['agents'] as { Agent?: { prototype: Record<string, unknown> } } | undefined)?.Agent?.prototype;
  const refusal = unemulatedCallMessage(bundle.code.replace(/\n\/\/# sourceMappingURL=.*$/s, ''), (method) => typeof agent?.[method] === 'function');
  if (refusal) throw new Error(refusal);
  const projectRequire = createRequire(entry);
  const require = (id: string): unknown => {
    if (id in provided) return provided[id];
    if (PROVIDED.test(id)) throw new Error(unemulatedModuleMessage(id));
    if (isBuiltin(id)) return projectRequire(id);
    return projectRequire(id);
  };
  const module = { exports: {} as Record<string, unknown> };
  const names = Object.keys(globals).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  const wrapper = vm.runInThisContext(`(function (exports, require, module, __filename, __dirname${names.map((n) => ', ' + n).join('')}) {\n${bundle.code}\n})`, { filename: fileName });
  wrapper(module.exports, require, module, entry, path.dirname(entry), ...names.map((name) => globals[name]));
  return module.exports;
}
