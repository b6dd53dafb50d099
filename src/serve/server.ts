/**
 * Composes the serve process: the worker on the runtime, the deliveries log, the outbound sink,
 * the admin API and the receiver in front. `hookbench serve` and the tests both start it here.
 */
import * as fs from 'node:fs';
import type { AccessPolicy } from './net/access';
import type { SinkLimits } from '../core/contract/sink';
import { AdminApi } from './admin/adminApi';
import { noteDataFormat } from './dataFormat';
import { lockDataFolder, type DataLock } from './dataLock';
import { DeliveryLog } from './deliveryLog';
import { DeliveryRetries } from './deliveryRetries';
import { Receiver } from './http/receiver';
import { Sink } from './sink';
import { WorkerHost, type ServePlatform, type WorkerHostOptions } from './workerHost';
import { secureDataFolder, writePrivate } from '../core/privateFiles';
import { serveLockFile } from '../core/contract/serveLock';
import { ADMIN_PROTOCOL_VERSION } from '../core/contract/adminProtocol';
import { adminTokenFile, formatAdminToken } from '../core/contract/adminTokenFile';
import { internalPath } from '../core/contract/dataFolder';

/** What is the serve process's own; what the whole process shares comes in its platform. */
export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  /** The worker to run, handed to the worker host as it is. */
  readonly worker: WorkerHostOptions;
  readonly bodyLimit?: number;
  readonly adminToken?: string;
  readonly sinkSecret?: string;
  /** The sink's bounds (default SINK_LIMITS in src/core/contract/sink.ts). */
  readonly sinkLimits?: Partial<SinkLimits>;
  /** Who may reach the non-webhook routes and WebSockets (access.ts). */
  readonly access?: AccessPolicy;
  /** Retry what providers would retry, their schedules compressed by `scale` (`--retries`, deliveryRetries.ts). */
  readonly retries?: { readonly scale: number };
}

export interface RunningServer {
  readonly url: string;
  readonly worker: WorkerHost;
  readonly deliveries: DeliveryLog;
  readonly sink: Sink;
  /** Stops accepting, drains, commits and snapshots everything. */
  stop(): Promise<void>;
}

/** Starts serving `platform.dataDir`; the platform outlives the server (its owner made it). */
export async function startServer(platform: ServePlatform, options: ServerOptions): Promise<RunningServer> {
  // Before anything is read or written there: a cloned repository's folder may hold links.
  secureDataFolder(platform.dataDir);
  const lock = await lockDataFolder(platform.dataDir, serveLockFile(platform.dataDir));
  try {
    return await startLocked(platform, options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLocked(platform: ServePlatform, options: ServerOptions, lock: DataLock): Promise<RunningServer> {
  const { dataDir, logger, instanceEvents, bindingChanges } = platform;
  noteDataFormat(dataDir, internalPath(dataDir, 'format'), logger);
  const worker = await WorkerHost.start(platform, options.worker);
  const deliveries = await DeliveryLog.open({ dir: internalPath(dataDir, 'deliveries') });
  const sink = await Sink.open(platform.sql, internalPath(dataDir, 'sink'), { ...options.sinkLimits, secret: options.sinkSecret });
  const runtime = () => worker.runtime();
  const admin = new AdminApi({ token: options.adminToken, runtime, deliveries, sink, instanceEvents, bindingChanges, logger, lock });
  const retries = options.retries
    ? new DeliveryRetries({ scale: options.retries.scale, timers: platform.timers, logger, secrets: options.worker.secrets })
    : undefined;
  const receiver = new Receiver({
    host: options.host,
    port: options.port,
    runtime,
    logger,
    bodyLimit: options.bodyLimit,
    admin,
    deliveries,
    access: options.access,
    timers: platform.timers,
    retries,
    onHandlerError: (method, requestPath, error) => worker.reportException(method, requestPath, error),
  });
  /** Everything behind the receiver, closed in order. */
  const closeBehind = async () => {
    await worker.stop();
    await deliveries.close();
    await sink.close();
  };
  let url: string;
  try {
    url = await receiver.listen();
  } catch (error) {
    await closeBehind();
    throw error;
  }
  // Before the lock names the address: whoever finds this process the holder finds its token too.
  const tokenFile = adminTokenFile(dataDir);
  if (options.adminToken) writePrivate(tokenFile, formatAdminToken({ token: options.adminToken, protocol: ADMIN_PROTOCOL_VERSION }));
  else fs.rmSync(tokenFile, { force: true });
  // Now a checker can reach the admin API and ask this process to prove it holds the folder.
  lock.listening(receiver.localAddress);
  retries?.listening(url);
  return {
    url,
    worker,
    deliveries,
    sink,
    async stop() {
      lock.closing();
      // Retries in flight still reach the receiver; none waiting is sent.
      await retries?.stop();
      await receiver.close();
      await closeBehind();
      fs.rmSync(tokenFile, { force: true });
      // Every database is closed and synced: the shared log holds nothing they need.
      await platform.log.close();
      lock.release();
    },
  };
}
