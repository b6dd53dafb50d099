/**
 * `startServe`: the one place a serve process is built (docs/architecture.md, "One serve"). The
 * CLI's `hookbench serve` turns its flags into these options; the tests, the benches and
 * `hookbench chaos` (chaosTarget.ts) call it too, so what they exercise is what users run: the
 * platform with sql.js in heaps dropped once empty and the collection after them, the worker, the
 * deliveries log, the sink, the admin API and the receiver (server.ts), the worker's console routed
 * to the log, the event-loop watch, the Browser Rendering emulator the `BROWSER` binding reaches,
 * and the login file under `requireToken`. What belongs to a process and not to a serve — signals,
 * exit codes, the lines printed for whoever started it, the process-wide error handlers — stays in
 * the CLI.
 */
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import type { SqlJsStatic } from 'sql.js';
import type { SinkLimits } from '../core/contract/sink';
import { internalPath } from '../core/contract/dataFolder';
import type { Logger } from '../core/log';
import { writePrivate } from '../core/privateFiles';
import type { Timers } from '../core/timers';
import { createPlatform, type RuntimeLimits } from '../runtime/platform';
import { SqlHeaps } from '../runtime/storage/sqlHeaps';
import { loadSqlJs, separateSqlJsLoader } from '../runtime/storage/sqljs';
import { routeConsole } from './consoleRoute';
import { watchEventLoop } from './eventLoopWatch';
import { GcNudge } from './gcNudge';
import type { AccessPolicy } from './net/access';
import { loginUrl } from './net/localCredential';
import { RenderServer } from './renderEmulator/renderServer';
import { startServer, type RunningServer } from './server';
import type { ServePlatform, WorkerHostOptions } from './workerHost';

/** Databases per sql.js heap: a heap is dropped, and its memory given back, once all of its databases closed. */
const DATABASES_PER_HEAP = 128;

/** The Browser Rendering emulator beside the receiver (`--render-port`, `--render-rate`, `--render-concurrency`). */
export interface RenderOptions {
  readonly port: number;
  readonly token: string;
  readonly ratePerSecond?: number;
  readonly concurrency?: number;
}

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  /** The data folder, made absolute here. */
  readonly dataDir: string;
  readonly worker: WorkerHostOptions;
  readonly logger: Logger;
  readonly adminToken?: string;
  readonly sinkSecret?: string;
  readonly sinkLimits?: Partial<SinkLimits>;
  readonly bodyLimit?: number;
  readonly access?: AccessPolicy;
  readonly retries?: { readonly scale: number };
  readonly limits?: Partial<RuntimeLimits>;
  /** The emulator, or none (`--no-render`). */
  readonly render?: RenderOptions;
  /** The platform's timers; real ones unless a test runs on a manual clock. */
  readonly timers?: Timers;
  /**
   * One sql.js for every database instead of heaps dropped once empty: for a process that starts
   * many short serves (a test file, chaos' runs), which shares one compiled sql.js between them.
   */
  readonly sharedSql?: SqlJsStatic;
}

export interface RunningServe extends RunningServer {
  readonly platform: ServePlatform;
  /** The emulator's API base (`…/client/v4`) while it runs; undefined when off or when it could not start. */
  readonly renderUrl: string | undefined;
  /** `<data>/_hookbench/login`, written under `access.requireToken`. */
  readonly loginFile: string | undefined;
}

export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const { logger } = options;
  const dataDir = path.resolve(options.dataDir);
  const watch = watchEventLoop(logger);
  const gcNudge = options.sharedSql ? undefined : new GcNudge();
  // The render emulator starts after the receiver; the browser binding reaches it once it runs
  // (a request before then finds no browser, as when the emulator is off).
  const rendering: { server?: RenderServer } = {};
  const platform: ServePlatform = {
    ...createPlatform({
      browser: () => rendering.server?.browser,
      sql: options.sharedSql ?? (await loadSqlJs()),
      // Instances' databases in heaps that are dropped once empty: memory comes back after a load.
      ...(gcNudge ? { heaps: new SqlHeaps(separateSqlJsLoader(), DATABASES_PER_HEAP, () => gcNudge.soon()) } : {}),
      logger,
      dataDir,
      limits: options.limits,
      ...(options.timers ? { timers: options.timers } : {}),
    }),
    esbuild,
  };
  const restoreConsole = routeConsole(logger);
  let server: RunningServer;
  try {
    server = await startServer(platform, {
      host: options.host,
      port: options.port,
      worker: options.worker,
      adminToken: options.adminToken,
      sinkSecret: options.sinkSecret,
      sinkLimits: options.sinkLimits,
      bodyLimit: options.bodyLimit,
      access: options.access,
      ...(options.retries ? { retries: options.retries } : {}),
    });
  } catch (error) {
    restoreConsole();
    watch.stop();
    gcNudge?.dispose();
    throw error;
  }
  const render = options.render ? await startRender(options, options.render, Number(new URL(server.url).port)) : undefined;
  rendering.server = render;
  let loginFile: string | undefined;
  if (options.access?.requireToken !== undefined) {
    // The owner's browser signs in once from this URL; it holds the token, so only its owner may read it.
    loginFile = internalPath(dataDir, 'login');
    writePrivate(loginFile, loginUrl(server.url, options.access.requireToken) + '\n');
  }
  watch.ready();
  return {
    ...server,
    platform,
    renderUrl: render?.url,
    loginFile,
    async stop() {
      watch.stop();
      try {
        await render?.close();
        await server.stop();
      } finally {
        gcNudge?.dispose();
        restoreConsole();
      }
    },
  };
}

/** `receiverPort`: the receiver's, whose admin routes rendered pages may not load. */
async function startRender(options: ServeOptions, given: RenderOptions, receiverPort: number): Promise<RenderServer | undefined> {
  const render = new RenderServer({
    host: options.host,
    port: given.port,
    token: given.token,
    logger: options.logger,
    ratePerSecond: given.ratePerSecond,
    access: options.access,
    receiverPort,
    ...(given.concurrency ? { concurrency: given.concurrency } : {}),
  });
  try {
    await render.listen();
  } catch (error) {
    // The receiver is what serve is for: a busy render port (another window's emulator) costs the emulator only.
    options.logger.warn(
      `[render] the Browser Rendering emulator did not start on port ${given.port}: ${(error as Error).message}; choose another with --render-port (0: any free port)`,
    );
    await render.close().catch(() => undefined);
    return undefined;
  }
  return render;
}
