/**
 * Loads the user's worker into a runtime and keeps it current: bundles the entry, builds `env`
 * from the wrangler config and the secrets, and on every source change swaps in a new runtime
 * (instances of the old one are closed, committing their state, and wake in the new one).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as esbuildType from 'esbuild';
import type { Platform } from '../runtime/platform';
import { workerExceptionMessage, workerStatusMessage, type WorkerStatus } from '../core/contract/workerProblems';
import { evaluateWorker, watchWorker, bundleWorker, type Bundle, type BuildSettings, WorkerBuildError } from '../runtime/worker/loader';
import { BundleMap, firstSourceFrame, inlineSourceMap, SourceStacks } from '../runtime/worker/sourceStacks';
import { WorkerRuntime } from '../runtime/worker/workerRuntime';
import type { WranglerConfig } from '../core/workerConfig/wranglerConfig';
import { NEWEST } from '../core/workerConfig/compatibility';

/** The serve process's platform: the runtime's, and esbuild, which bundles the user's worker. */
export interface ServePlatform extends Platform {
  readonly esbuild: typeof esbuildType;
}

/** The worker to run and how: what the CLI's flags and the wrangler config say. */
export interface WorkerHostOptions {
  readonly entry: string;
  /** A bundle built ahead of time (the built-in worker): evaluated as is, never rebuilt. */
  readonly prebuilt?: string;
  readonly config: WranglerConfig | undefined;
  readonly secrets: Readonly<Record<string, string>>;
  readonly watch: boolean;
  /** `--test-scheduled`: `/__scheduled?cron=…` runs the worker's scheduled(). */
  readonly testScheduled?: boolean;
}

/** What the user's worker is built with: the runtime's globals and the config's module rules. */
export function buildSettings(options: Pick<WorkerHostOptions, 'config'>): BuildSettings {
  return { globals: WorkerRuntime.globalNames(), rules: options.config?.rules ?? [] };
}

export class WorkerHost {
  private current: WorkerRuntime | undefined;
  private watcher: { dispose(): Promise<void> } | undefined;
  private swapping: Promise<void> = Promise.resolve();
  /** Stack traces in the user's files, relative to the project (the wrangler config's folder, or where serve runs). */
  private readonly stacks: SourceStacks;
  private readonly mapping: { dispose(): void };
  /** The platform's own calls that threw (queue, alarm, cron), reported as exceptions. */
  private readonly handlerErrors: { dispose(): void };
  /** The running build's script name and its source files. */
  private build: { readonly fileName: string; readonly sources: ReadonlySet<string> } | undefined;
  private builds = 0;
  /** Whether the last build failed: the next good one says it recovered. */
  private failed = false;

  private constructor(
    private readonly platform: ServePlatform,
    private readonly options: WorkerHostOptions,
  ) {
    this.stacks = new SourceStacks(options.config ? path.dirname(options.config.file) : process.cwd());
    this.mapping = this.stacks.install();
    this.handlerErrors = platform.handlerErrors.event(({ handler, target, error }) => this.reportException(`${handler}()`, target, error));
  }

  static async start(platform: ServePlatform, options: WorkerHostOptions): Promise<WorkerHost> {
    const host = new WorkerHost(platform, options);
    try {
      await host.load();
    } catch (error) {
      host.mapping.dispose();
      host.handlerErrors.dispose();
      throw error;
    }
    return host;
  }

  private async load(): Promise<void> {
    const { platform, options } = this;
    if (options.prebuilt) {
      // A bundle built ahead keeps its map (hookbench chaos builds the user's worker once for all its
      // runs, as an ES module `.mjs`); the built-in worker is CommonJS.
      const code = fs.readFileSync(options.prebuilt, 'utf8');
      const sourceMap = inlineSourceMap(code, process.cwd());
      const format = options.prebuilt.endsWith('.mjs') ? 'esm' : 'cjs';
      this.current = await this.instantiate({ code, inputs: [options.prebuilt], format, ...(sourceMap ? { sourceMap } : {}) });
      await this.current.start();
      return;
    }
    if (!options.watch) {
      this.current = await this.firstLoad(
        await bundleWorker(platform.esbuild, options.entry, buildSettings(options)).catch((error: unknown) => this.refused(error)),
      );
      await this.current.start();
      return;
    }
    // The watcher's first build is the initial load; every later one is a reload.
    let first: ((result: Bundle | WorkerBuildError) => void) | undefined;
    const initial = new Promise<Bundle | WorkerBuildError>((resolve) => (first = resolve));
    const watcher = await watchWorker(platform.esbuild, options.entry, buildSettings(options), (result) => {
      if (first) {
        first(result);
        first = undefined;
      } else if (result instanceof WorkerBuildError) {
        platform.logger.error(`[worker] ${result.message} (still running the previous build)`);
        this.report({ state: 'failed', serving: 'previous', problems: result.problems });
      } else {
        this.swapping = this.swapping.then(() => this.swap(result));
      }
    });
    this.watcher = watcher;
    const result = await initial;
    try {
      if (result instanceof WorkerBuildError) this.refused(result);
      this.current = await this.firstLoad(result);
      await this.current.start();
    } catch (error) {
      // A worker refused at start (a build error, an import Hookbench does not emulate) ends
      // serve: the watcher would otherwise keep the process alive after its one-line refusal.
      await watcher.dispose();
      throw error;
    }
  }

  /** The first build's runtime; a worker whose top level throws is reported, and refused. */
  private async firstLoad(bundle: Bundle): Promise<WorkerRuntime> {
    try {
      const runtime = await this.instantiate(bundle);
      this.report({ state: 'ok' });
      return runtime;
    } catch (error) {
      this.report({ state: 'failed', serving: 'none', problems: [this.loadProblem(error, bundle)] });
      throw error;
    }
  }

  /** Reports a first build that failed, then throws its error: serve ends with it. */
  private refused(error: unknown): never {
    if (error instanceof WorkerBuildError) this.report({ state: 'failed', serving: 'none', problems: error.problems });
    throw error;
  }

  private report(status: WorkerStatus): void {
    // A good build after a good build changes nothing for whoever shows the status.
    if (status.state === 'ok' && !this.failed && this.builds > 1) return;
    this.failed = status.state === 'failed';
    this.platform.logger.info(workerStatusMessage(status));
  }

  private loadProblem(error: unknown, bundle: Bundle) {
    const location = this.locate(error, new Set(bundle.inputs));
    return { kind: 'load' as const, message: String((error as Error)?.message ?? error).split('\n')[0]!, ...(location ? { location } : {}) };
  }

  private locate(error: unknown, sources: ReadonlySet<string>) {
    const stack = (error as Error | undefined)?.stack;
    return typeof stack === 'string' ? firstSourceFrame(stack, this.stacks, sources) : undefined;
  }

  /**
   * Reports a request's handler that threw (the receiver answered 500): the request, the error's
   * first line and where in the user's sources it was thrown.
   */
  reportException(method: string, requestPath: string, error: unknown): void {
    if (this.options.prebuilt) return;
    const location = this.build ? this.locate(error, this.build.sources) : undefined;
    const message = String((error as Error)?.message ?? error).split('\n')[0]!;
    this.platform.logger.info(workerExceptionMessage({ method, path: requestPath, message, ...(location ? { location } : {}) }));
  }

  /** The runtime to send a request to; waits while a reload swaps runtimes. */
  async runtime(): Promise<WorkerRuntime> {
    await this.swapping;
    if (!this.current) throw new Error('the worker is not loaded');
    return this.current;
  }

  private async instantiate(bundle: Bundle): Promise<WorkerRuntime> {
    const env: Record<string, unknown> = {};
    const config = this.options.config;
    const process = WorkerRuntime.processOf(config?.compatibility ?? NEWEST, config?.vars ?? {}, this.options.secrets);
    // Each build's frames carry a script name of its own (the loader's), so a request still running
    // the previous build maps with its own map.
    this.builds++;
    let fileName: string | undefined;
    const onScript = (name: string, lineOffset: number) => {
      fileName = name;
      if (bundle.sourceMap) this.stacks.register(name, new BundleMap(bundle.sourceMap, lineOffset));
    };
    let exports: Record<string, unknown>;
    try {
      exports = await evaluateWorker(bundle, this.options.entry, WorkerRuntime.providedModules(env, process), WorkerRuntime.globals(process), onScript);
    } catch (error) {
      // Formatted now, while the map is there.
      void (error as Error | undefined)?.stack;
      if (fileName) this.stacks.unregister(fileName);
      throw error;
    }
    this.build = { fileName: fileName ?? this.options.entry, sources: new Set(bundle.inputs) };
    return new WorkerRuntime(this.platform, {
      exports,
      env,
      bindings: this.options.config?.durableObjects ?? [],
      workflows: this.options.config?.workflows ?? [],
      vars: this.options.config?.vars ?? {},
      bindingsConfig: this.options.config?.bindings,
      testScheduled: this.options.testScheduled,
      ...(this.options.config?.assets ? { assets: this.options.config.assets } : {}),
      secrets: this.options.secrets,
      ...(this.options.config?.compatibility ? { compatibility: this.options.config.compatibility } : {}),
    });
  }

  private async swap(bundle: Bundle): Promise<void> {
    let next: WorkerRuntime;
    const previousBuild = this.build;
    try {
      next = await this.instantiate(bundle);
    } catch (error) {
      this.platform.logger.error(`[worker] reload failed, still running the previous build: ${(error as Error).stack ?? String(error)}`);
      this.report({ state: 'failed', serving: 'previous', problems: [this.loadProblem(error, bundle)] });
      return;
    }
    const previous = this.current;
    // Close the old instances first, so the new ones open the state they committed.
    await previous?.shutdown();
    if (previousBuild) this.stacks.unregister(previousBuild.fileName);
    this.current = next;
    await next.start();
    this.platform.logger.info('[worker] reloaded after a source change');
    this.report({ state: 'ok' });
  }

  async stop(): Promise<void> {
    await this.watcher?.dispose();
    await this.swapping;
    await this.current?.shutdown();
    this.mapping.dispose();
    this.handlerErrors.dispose();
  }
}
