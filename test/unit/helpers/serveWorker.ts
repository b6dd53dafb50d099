// Serves a fixture worker in-process, on port 0 and a temp data folder, through the serve's own
// composition (startServe, as `hookbench serve` starts it, without the render emulator), and
// connects raw WebSocket clients that record every frame.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import type * as Contract from '../../../src/core/contract/instances';
import type { SinkLimits } from '../../../src/core/contract/sink';
import { lineLogger } from '../../../src/core/log';
import type { Timers } from '../../../src/core/timers';
import { findWranglerConfig, readWranglerConfig, type WranglerConfig } from '../../../src/core/workerConfig/wranglerConfig';
import { defaultWorkerConfig, type DefaultWorkerSettings } from '../../../src/serve/defaultWorker';
import type { RunningServer } from '../../../src/serve/server';
import { startServe } from '../../../src/serve/startServe';
import { loadSqlJs } from '../../../src/runtime/storage/sqljs';

/** The runtime's own instance events: the admin API's deletions and clears are left out. */
export type InstanceEvent = Contract.InstanceRef & { readonly kind: 'woken' | 'evicted' };

export interface Served {
  readonly url: string;
  readonly dataDir: string;
  readonly logs: string[];
  readonly events: InstanceEvent[];
  readonly server: RunningServer;
  /** Resolves when an instance event matching `kind` and `name` has happened (now or later). */
  nextEvent(kind: InstanceEvent['kind'], name: string, count?: number): Promise<void>;
  /**
   * Resolves once `check` holds of the log lines, looked at now and at each new line; rejects
   * saying `what`, with the log, if it does not within 10 s (a test fails instead of hanging).
   */
  logged(what: string, check: (logs: readonly string[]) => boolean): Promise<void>;
  stop(): Promise<void>;
}

/** The project root, found from wherever the bundled test runs. */
export function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('no package.json above the tests');
    dir = parent;
  }
  return dir;
}

export interface ServeOptions {
  dataDir?: string;
  secrets?: Record<string, string>;
  idleMs?: number;
  root?: string;
  watch?: boolean;
  bodyLimit?: number;
  adminToken?: string;
  sinkSecret?: string;
  /** The sink's bounds, smaller than serve's so a test reaches them with small bodies. */
  sinkLimits?: Partial<SinkLimits>;
  /** Serve this entry with this config instead of a fixture folder. */
  worker?: { entry: string; config: WranglerConfig };
  /** The platform's timers (a manual clock); real ones by default. */
  timers?: Timers;
  /** `serve --retries` with this `--retry-scale`. */
  retries?: { scale: number };
}

/** The built-in webhook worker, from source, with the given secrets and settings. */
export function serveDefaultWorker(options: ServeOptions & { settings?: DefaultWorkerSettings } = {}): Promise<Served> {
  const entry = path.join(projectRoot(), 'src', 'workers', 'default', 'index.ts');
  return serveFixture('default', { ...options, worker: { entry, config: defaultWorkerConfig(options.settings ?? {}) } });
}

export async function serveFixture(name: string, options: ServeOptions = {}): Promise<Served> {
  const root = options.root ?? path.join(projectRoot(), 'test', 'fixtures', 'workers', name);
  const events: InstanceEvent[] = [];
  const listeners = new Set<() => void>();
  const config = options.worker?.config ?? readWranglerConfig(findWranglerConfig(root)!);
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `hb-${name}-`));
  const logs: string[] = [];
  const onLine = new Set<() => void>();
  const logger = lineLogger((line) => {
    logs.push(line);
    for (const look of [...onLine]) look();
  }, 'debug');
  const server = await startServe({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    worker: { entry: options.worker?.entry ?? config.main!, config, secrets: options.secrets ?? {}, watch: options.watch ?? false },
    logger,
    bodyLimit: options.bodyLimit,
    adminToken: options.adminToken,
    sinkSecret: options.sinkSecret,
    sinkLimits: options.sinkLimits,
    limits: { idleMs: options.idleMs },
    // One compiled sql.js for the whole test process, as chaos shares one between its runs.
    sharedSql: await loadSqlJs(),
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.retries ? { retries: options.retries } : {}),
  });
  const { platform } = server;
  platform.instanceEvents.event((event) => {
    if (event.kind !== 'woken' && event.kind !== 'evicted') return;
    events.push({ kind: event.kind, namespace: event.namespace, name: event.name });
    for (const listener of [...listeners]) listener();
  });
  const url = server.url;
  return {
    url,
    dataDir,
    logs,
    events,
    nextEvent(kind, name, count = 1) {
      const seen = () => events.filter((e) => e.kind === kind && e.name === name).length >= count;
      if (seen()) return Promise.resolve();
      return new Promise((resolve) => {
        const listener = () => {
          if (!seen()) return;
          listeners.delete(listener);
          resolve();
        };
        listeners.add(listener);
      });
    },
    logged(what, check) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          onLine.delete(look);
          reject(new Error(`${what} did not happen within 10 s:\n${logs.join('\n')}`));
        }, 10_000);
        const look = () => {
          if (!check(logs)) return;
          clearTimeout(timer);
          onLine.delete(look);
          resolve();
        };
        onLine.add(look);
        look();
      });
    },
    server,
    async stop() {
      await server.stop();
      platform.instanceEvents.dispose();
    },
  };
}

/** A raw WebSocket client that keeps every text frame it receives, in order. */
export class FrameClient {
  readonly frames: string[] = [];
  private waiters: (() => void)[] = [];
  readonly socket: WebSocket;
  readonly opened: Promise<void>;

  constructor(url: string) {
    this.socket = new WebSocket(url.replace(/^http/, 'ws'));
    this.socket.on('message', (data, isBinary) => {
      this.frames.push(isBinary ? `<binary ${(data as Buffer).length}>` : (data as Buffer).toString('utf8'));
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  /** Resolves once `count` frames have arrived (rejects after `ms`). */
  async waitForFrames(count: number, ms = 5000): Promise<string[]> {
    const deadline = Date.now() + ms;
    while (this.frames.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} frames, got ${this.frames.length}: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.frames;
  }

  send(data: string | Buffer): void {
    this.socket.send(data);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close(1000, 'done');
    });
  }
}
