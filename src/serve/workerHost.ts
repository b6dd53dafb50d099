/**
 * Loads the user's worker into a runtime and keeps it current: bundles the entry, builds `env`
 * from the wrangler config and the secrets, and on every source change swaps in a new runtime
 * (instances of the old one are closed, committing their state, and wake in the new one).
 */
import * as fs from 'node:fs';
import type * as esbuildType from 'esbuild';
import type { Platform } from '../core/runtime/platform';
import { evaluateWorker, watchWorker, bundleWorker, type Bundle, type BuildSettings, WorkerBuildError } from '../core/runtime/worker/loader';
import { WorkerRuntime } from '../core/runtime/worker/workerRuntime';
import type { WranglerConfig } from '../core/runtime/worker/wranglerConfig';
import { NEWEST } from '../core/runtime/worker/compatibility';

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

  private constructor(
    private readonly platform: ServePlatform,
    private readonly options: WorkerHostOptions,
  ) {}

  static async start(platform: ServePlatform, options: WorkerHostOptions): Promise<WorkerHost> {
    const host = new WorkerHost(platform, options);
    if (options.prebuilt) {
      // A prebuilt `.mjs` is an ES module bundle (chaos bundles the user's worker once); the
      // built-in worker is CommonJS.
      const format = options.prebuilt.endsWith('.mjs') ? 'esm' : 'cjs';
      host.current = await host.instantiate({ code: fs.readFileSync(options.prebuilt, 'utf8'), inputs: [options.prebuilt], format });
      await host.current.start();
      return host;
    }
    if (!options.watch) {
      host.current = await host.instantiate(await bundleWorker(platform.esbuild, options.entry, buildSettings(options)));
      await host.current.start();
      return host;
    }
    // The watcher's first build is the initial load; every later one is a reload.
    let first: ((result: Bundle | WorkerBuildError) => void) | undefined;
    const initial = new Promise<Bundle | WorkerBuildError>((resolve) => (first = resolve));
    host.watcher = await watchWorker(platform.esbuild, options.entry, buildSettings(options), (result) => {
      if (first) {
        first(result);
        first = undefined;
      } else if (result instanceof WorkerBuildError) {
        platform.logger.error(`[worker] ${result.message} (still running the previous build)`);
      } else {
        host.swapping = host.swapping.then(() => host.swap(result));
      }
    });
    const result = await initial;
    try {
      if (result instanceof WorkerBuildError) throw result;
      host.current = await host.instantiate(result);
      await host.current.start();
    } catch (error) {
      // A worker refused at start (a build error, an import Hookbench does not emulate) ends
      // serve: the watcher would otherwise keep the process alive after its one-line refusal.
      await host.watcher.dispose();
      throw error;
    }
    return host;
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
    const exports = await evaluateWorker(bundle, this.options.entry, WorkerRuntime.providedModules(env, process), WorkerRuntime.globals(process));
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
    try {
      next = await this.instantiate(bundle);
    } catch (error) {
      this.platform.logger.error(`[worker] reload failed, still running the previous build: ${(error as Error).stack ?? String(error)}`);
      return;
    }
    const previous = this.current;
    // Close the old instances first, so the new ones open the state they committed.
    await previous?.shutdown();
    this.current = next;
    await next.start();
    this.platform.logger.info('[worker] reloaded after a source change');
  }

  async stop(): Promise<void> {
    await this.watcher?.dispose();
    await this.swapping;
    await this.current?.shutdown();
  }
}
