/**
 * Loads the user's worker into a runtime and keeps it current: bundles the entry, builds `env`
 * from the wrangler config and the secrets, and on every source change swaps in a new runtime
 * (instances of the old one are closed, committing their state, and wake in the new one).
 */
import * as fs from 'node:fs';
import type * as esbuildType from 'esbuild';
import type { SqlJsStatic } from 'sql.js';
import type { SqlHeaps } from '../core/runtime/storage/sqlHeaps';
import type { InstanceEvent } from '../core/contract/instances';
import type { Logger } from '../core/log';
import { evaluateWorker, watchWorker, bundleWorker, type Bundle, WorkerBuildError } from '../core/runtime/worker/loader';
import { WorkerRuntime } from '../core/runtime/worker/workerRuntime';
import type { WranglerConfig } from '../core/runtime/worker/wranglerConfig';

export interface WorkerHostOptions {
  readonly entry: string;
  /** A bundle built ahead of time (the built-in worker): evaluated as is, never rebuilt. */
  readonly prebuilt?: string;
  readonly config: WranglerConfig | undefined;
  readonly secrets: Readonly<Record<string, string>>;
  readonly dataDir: string;
  readonly sql: SqlJsStatic;
  readonly heaps?: SqlHeaps;
  readonly logger: Logger;
  readonly esbuild: typeof esbuildType;
  readonly watch: boolean;
  /** `--test-scheduled`: `/__scheduled?cron=…` runs the worker's scheduled(). */
  readonly testScheduled?: boolean;
  readonly idleMs?: number;
  readonly onInstance?: (event: InstanceEvent) => void;
}

export class WorkerHost {
  private current: WorkerRuntime | undefined;
  private watcher: { dispose(): Promise<void> } | undefined;
  private swapping: Promise<void> = Promise.resolve();

  private constructor(private readonly options: WorkerHostOptions) {}

  static async start(options: WorkerHostOptions): Promise<WorkerHost> {
    const host = new WorkerHost(options);
    if (options.prebuilt) {
      host.current = host.instantiate({ code: fs.readFileSync(options.prebuilt, 'utf8'), inputs: [options.prebuilt] });
      await host.current.start();
      return host;
    }
    if (!options.watch) {
      host.current = host.instantiate(await bundleWorker(options.esbuild, options.entry));
      await host.current.start();
      return host;
    }
    // The watcher's first build is the initial load; every later one is a reload.
    let first: ((result: Bundle | WorkerBuildError) => void) | undefined;
    const initial = new Promise<Bundle | WorkerBuildError>((resolve) => (first = resolve));
    host.watcher = await watchWorker(options.esbuild, options.entry, (result) => {
      if (first) {
        first(result);
        first = undefined;
      } else if (result instanceof WorkerBuildError) {
        options.logger.error(`[worker] ${result.message} (still running the previous build)`);
      } else {
        host.swapping = host.swapping.then(() => host.swap(result));
      }
    });
    const result = await initial;
    try {
      if (result instanceof WorkerBuildError) throw result;
      host.current = host.instantiate(result);
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

  private instantiate(bundle: Bundle): WorkerRuntime {
    const env: Record<string, unknown> = {};
    const exports = evaluateWorker(bundle, this.options.entry, WorkerRuntime.providedModules(env), WorkerRuntime.globals());
    return new WorkerRuntime({
      exports,
      env,
      bindings: this.options.config?.durableObjects ?? [],
      workflows: this.options.config?.workflows ?? [],
      vars: this.options.config?.vars ?? {},
      bindingsConfig: this.options.config?.bindings,
      testScheduled: this.options.testScheduled,
      ...(this.options.config?.assets ? { assets: this.options.config.assets } : {}),
      secrets: this.options.secrets,
      dataDir: this.options.dataDir,
      sql: this.options.sql,
      heaps: this.options.heaps,
      logger: this.options.logger,
      idleMs: this.options.idleMs,
      onInstance: this.options.onInstance,
    });
  }

  private async swap(bundle: Bundle): Promise<void> {
    let next: WorkerRuntime;
    try {
      next = this.instantiate(bundle);
    } catch (error) {
      this.options.logger.error(`[worker] reload failed, still running the previous build: ${(error as Error).stack ?? String(error)}`);
      return;
    }
    const previous = this.current;
    // Close the old instances first, so the new ones open the state they committed.
    await previous?.shutdown();
    this.current = next;
    await next.start();
    this.options.logger.info('[worker] reloaded after a source change');
  }

  async stop(): Promise<void> {
    await this.watcher?.dispose();
    await this.swapping;
    await this.current?.shutdown();
  }
}
