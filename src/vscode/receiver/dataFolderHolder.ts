/**
 * Who holds the data folder before this window starts its own serve, and after a start failed:
 * a live hookbench serve (a terminal's, another window's) is attached to; one proven stale, or
 * one that proves nothing, keeps this window out with DataFolderHeldError.
 */
import { folderInUse, portInUse } from '../../core/contract/serveHandshake';
import type { Logger } from '../../core/log';
import { findHolding, findServeOf, type Holding } from '../../core/serveHolder';
import { listenerPid } from './portInUse';

/** A live serve's holding of a data folder. */
export type LiveHolding = Extract<Holding, { kind: 'live' }>;

/**
 * The data folder is held by a process this window may neither attach to nor start beside: a
 * serve proven stale (Take Over stops it, after asking), or one that proves nothing yet.
 */
export class DataFolderHeldError extends Error {
  override readonly name = 'DataFolderHeldError';
  constructor(
    readonly dataDir: string,
    readonly holding: Extract<Holding, { kind: 'stale' | 'unproven' }>,
  ) {
    super(heldMessage(dataDir, holding));
  }
}

/** Whether `holding` keeps this window from starting its own serve there (a live one is attached to). */
function held(holding: Holding): DataFolderHeldError['holding'] | undefined {
  return holding.kind === 'unproven' || (holding.kind === 'stale' && holding.stops !== undefined) ? holding : undefined;
}

function heldMessage(dataDir: string, holding: DataFolderHeldError['holding']): string {
  if (holding.kind === 'stale')
    return `pid ${holding.pid ?? '?'} holds the data folder ${dataDir} but is stale (${holding.reason}): Take Over stops it, after asking`;
  return `pid ${holding.lock.pid} holds the data folder ${dataDir} but did not prove it is a hookbench serve of it (${holding.reason}); nothing was stopped: Restart once it listens`;
}

/**
 * Before a start: the live serve holding `data` to attach to, or undefined when this window may
 * start its own there (a stale lock that names no serve is logged and left). Throws
 * DataFolderHeldError for a holder that is neither live nor free.
 */
export async function liveHolder(data: string, logger: Logger): Promise<LiveHolding | undefined> {
  const holding = await findHolding(data);
  if (holding.kind === 'live') return holding;
  const refused = held(holding);
  if (refused) throw new DataFolderHeldError(data, refused);
  if (holding.kind === 'stale')
    logger.info(
      `serve.lock of ${data} names pid ${holding.pid ?? '?'}, which is not a hookbench serve of this folder: the lock is stale (${holding.reason}); nothing was stopped`,
    );
  return undefined;
}

/**
 * After this window's serve failed to start with `error`: the live serve to attach to instead —
 * a hookbench serve of another data folder listening where the workspace points, or one that took
 * `data` between the look and the start (looked at again, once). Throws `error` when there is
 * none, DataFolderHeldError when the folder's new holder is neither live nor free.
 */
export async function liveServeAfter(error: unknown, data: string): Promise<{ dataDir: string; holding: LiveHolding }> {
  const message = (error as Error).message;
  const port = portInUse(message)?.port;
  const there = port === undefined ? undefined : await serveOnPort(port);
  if (there) return there;
  if (!folderInUse(message)) throw error;
  const again = await findHolding(data);
  if (again.kind === 'live') return { dataDir: data, holding: again };
  const refused = held(again);
  if (!refused) throw error;
  throw new DataFolderHeldError(data, refused);
}

/** The live hookbench serve listening on `port`, when there is one of this user's. */
async function serveOnPort(port: number): Promise<Awaited<ReturnType<typeof findServeOf>>> {
  const pid = await listenerPid(port);
  return pid === undefined ? undefined : findServeOf(pid);
}
