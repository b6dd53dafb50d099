/**
 * Composes the serve process: the worker on the runtime, the deliveries log, the outbound sink,
 * the admin API and the receiver in front. `hookbench serve` and the tests both start it here.
 */
import * as path from 'node:path';
import type * as esbuildType from 'esbuild';
import type { SqlJsStatic } from 'sql.js';
import type { SqlHeaps } from '../core/runtime/storage/sqlHeaps';
import { Emitter } from '../core/events';
import type { Logger } from '../core/log';
import type { WranglerConfig } from '../core/runtime/worker/wranglerConfig';
import type { AccessPolicy } from './http/access';
import type { InstanceEvent } from '../core/contract/instances';
import type { SinkLimits } from '../core/contract/sink';
import { AdminApi } from './admin/adminApi';
import { noteDataFormat } from './dataFormat';
import { lockDataFolder, type DataLock } from './dataLock';
import { DeliveryLog } from './deliveryLog';
import { Receiver } from './http/receiver';
import { Sink } from './sink';
import { WorkerHost } from './workerHost';
import { secureDataFolder } from '../core/runtime/storage/privateFiles';
import { serveLockFile } from '../core/contract/serveLock';

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly entry: string;
  readonly prebuilt?: string;
  readonly config: WranglerConfig | undefined;
  readonly secrets: Readonly<Record<string, string>>;
  readonly watch: boolean;
  /** `--test-scheduled`: `/__scheduled?cron=…` runs the worker's scheduled(), as wrangler dev. */
  readonly testScheduled?: boolean;
  readonly sql: SqlJsStatic;
  /** Separate heaps for the instances' databases (src/core/runtime/storage/sqlHeaps.ts). */
  readonly heaps?: SqlHeaps;
  readonly esbuild: typeof esbuildType;
  readonly logger: Logger;
  readonly idleMs?: number;
  readonly bodyLimit?: number;
  readonly adminToken?: string;
  readonly sinkSecret?: string;
  /** The sink's bounds (default SINK_LIMITS in src/core/contract/sink.ts). */
  readonly sinkLimits?: Partial<SinkLimits>;
  /** Who may reach the non-webhook routes and WebSockets (access.ts). */
  readonly access?: AccessPolicy;
}

export interface RunningServer {
  readonly url: string;
  readonly worker: WorkerHost;
  readonly deliveries: DeliveryLog;
  readonly sink: Sink;
  readonly instanceEvents: Emitter<InstanceEvent>;
  /** Stops accepting, drains, commits and snapshots everything. */
  stop(): Promise<void>;
}

/** Internal files live beside the namespaces, under a name no encoded binding can take. */
export function internalDir(dataDir: string, part: string): string {
  return path.join(dataDir, '_hookbench', part);
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  // Before anything is read or written there: a cloned repository's folder may hold links.
  secureDataFolder(options.dataDir);
  const lock = await lockDataFolder(options.dataDir, serveLockFile(options.dataDir));
  try {
    return await startLocked(options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLocked(options: ServerOptions, lock: DataLock): Promise<RunningServer> {
  noteDataFormat(options.dataDir, internalDir(options.dataDir, 'format'), options.logger);
  const instanceEvents = new Emitter<InstanceEvent>();
  const worker = await WorkerHost.start({
    entry: options.entry,
    prebuilt: options.prebuilt,
    config: options.config,
    secrets: options.secrets,
    dataDir: options.dataDir,
    sql: options.sql,
    heaps: options.heaps,
    logger: options.logger,
    esbuild: options.esbuild,
    watch: options.watch,
    testScheduled: options.testScheduled,
    idleMs: options.idleMs,
    onInstance: (event) => instanceEvents.fire(event),
  });
  const deliveries = await DeliveryLog.open({ dir: internalDir(options.dataDir, 'deliveries') });
  const sink = await Sink.open(options.sql, internalDir(options.dataDir, 'sink'), { ...options.sinkLimits, secret: options.sinkSecret });
  const runtime = () => worker.runtime();
  const admin = new AdminApi({ token: options.adminToken, runtime, deliveries, sink, instanceEvents, logger: options.logger, lock });
  const receiver = new Receiver({ host: options.host, port: options.port, runtime, logger: options.logger, bodyLimit: options.bodyLimit, admin, deliveries, access: options.access });
  /** Everything behind the receiver, closed in order. */
  const closeBehind = async () => {
    await worker.stop();
    await deliveries.close();
    await sink.close();
    instanceEvents.dispose();
  };
  let url: string;
  try {
    url = await receiver.listen();
  } catch (error) {
    await closeBehind();
    throw error;
  }
  // Now a checker can reach the admin API and ask this process to prove it holds the folder.
  lock.listening(receiver.localAddress);
  return {
    url,
    worker,
    deliveries,
    sink,
    instanceEvents,
    async stop() {
      lock.closing();
      await receiver.close();
      await closeBehind();
      lock.release();
    },
  };
}
