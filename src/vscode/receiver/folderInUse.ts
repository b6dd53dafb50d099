/**
 * When the data folder is held by a serve this window may not attach to: Take Over, offered only
 * for a holder proven stale (src/core/serveHolder.ts), and always asked first in a modal that
 * names what it will stop; a holder that proves nothing is never stopped (docs/security.md, The
 * data folder's lock). A live serve (a terminal's, a task's, another window's) is attached to
 * instead, and never reaches here.
 */
import * as vscode from 'vscode';
import { isRunning } from '../../core/childProcess';
import type { ServeLock } from '../../core/contract/serveLock';
import { stillHolds } from '../../core/lockHolder';
import type { Logger } from '../../core/log';
import { findHolding } from '../../core/serveHolder';
import type { DataFolderHeldError } from './dataFolderHolder';

const TAKE_OVER = 'Stop It and Take Over';

/** Stops the stale holder (SIGTERM: it drains and commits), waits for it to go (at most 20 s). */
async function stopHolder(lock: ServeLock): Promise<boolean> {
  // Checked again just before the signal: the pid must still name the process that answered.
  if (!stillHolds(lock)) return true;
  process.kill(lock.pid, 'SIGTERM');
  for (let waited = 0; waited < 20_000; waited += 100) {
    if (!isRunning(lock.pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isRunning(lock.pid);
}

/** Offers the way out of `held`; `start` starts this window's receiver again. */
export async function offerTakeOver(held: DataFolderHeldError, logger: Logger, start: () => Promise<unknown>): Promise<void> {
  const { dataDir, holding } = held;
  if (holding.kind !== 'stale' || !holding.stops) {
    const choice = await vscode.window.showErrorMessage(`Hookbench: ${held.message}.`, 'Show Log');
    if (choice === 'Show Log') void vscode.commands.executeCommand('hookbench.showLog');
    return;
  }
  const { pid } = holding.stops;
  const choice = await vscode.window.showWarningMessage(
    `Stop the hookbench serve of pid ${pid} and take over ${dataDir}?`,
    {
      modal: true,
      detail: `It holds the data folder, but ${holding.reason}. It is sent SIGTERM (it drains and commits first), then this window starts its own receiver.`,
    },
    TAKE_OVER,
  );
  if (choice !== TAKE_OVER) return;
  // Looked at again now: only the same holder, still proven stale, is stopped.
  const now = await findHolding(dataDir);
  if (now.kind === 'stale' && now.stops?.nonce === holding.stops.nonce) {
    logger.info(`taking ${dataDir} over from the hookbench serve of pid ${pid}: ${holding.reason}`);
    if (!(await stopHolder(now.stops))) {
      void vscode.window.showErrorMessage(`Hookbench: the hookbench serve of pid ${pid} did not stop within 20 s.`);
      return;
    }
  }
  await start();
}
