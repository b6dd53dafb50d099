/**
 * When another receiver holds the data folder (another VS Code window on this folder, or this
 * browser tab before a reload, whose extension host code-server keeps alive for a while): offer to
 * take it over, instead of a receiver that stays failed. Only a process that proves it holds the
 * folder's lock is stopped (src/core/lockHolder.ts, docs/security.md); a lock that names anything
 * else is stale, and this window's receiver takes it over without stopping anyone.
 */
import * as vscode from 'vscode';
import { isRunning } from '../../core/childProcess';
import { folderInUse } from '../../core/contract/serveHandshake';
import { serveLockFile, type ServeLock } from '../../core/contract/serveLock';
import { checkLock, stillHolds } from '../../core/lockHolder';
import type { Logger } from '../../core/log';

/** Stops the confirmed holder (SIGTERM: it drains and commits), waits for it to go (at most 20 s). */
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

/** Offers Take Over; `start` starts this window's receiver again. */
export async function offerTakeOver(message: string, logger: Logger, start: () => Promise<unknown>): Promise<void> {
  const { folder, pid } = folderInUse(message) ?? { folder: undefined, pid: NaN };
  const choice = await vscode.window.showWarningMessage(
    `Hookbench: another receiver (pid ${pid}) uses ${folder}: another VS Code window on this folder, or this tab before a reload.`,
    'Take Over',
    'Show Log',
  );
  if (choice === 'Show Log') return void vscode.commands.executeCommand('hookbench.showLog');
  if (choice !== 'Take Over' || folder === undefined) return;
  const verdict = await checkLock(serveLockFile(folder));
  if (verdict.kind === 'holder') {
    logger.info(`taking the data folder over from the receiver of pid ${verdict.lock.pid}, which proved it holds ${folder}`);
    if (!(await stopHolder(verdict.lock))) {
      void vscode.window.showErrorMessage(`Hookbench: the receiver of pid ${verdict.lock.pid} did not stop within 20 s.`);
      return;
    }
  } else if (verdict.kind === 'unconfirmed') {
    const line = `pid ${verdict.lock.pid} holds the lock of ${folder} but did not prove it is a hookbench serve of this folder (${verdict.reason}); nothing was stopped`;
    logger.warn(line);
    void vscode.window.showErrorMessage(`Hookbench: ${line}. Try again once it listens, or stop it yourself.`);
    return;
  } else if (verdict.kind !== 'free') {
    // Stale, or naming this extension host (which is no serve): this window's receiver takes it over.
    const [named, reason] = verdict.kind === 'own' ? [verdict.lock.pid, 'it names this window\'s extension host'] : [verdict.pid ?? '?', verdict.reason];
    const line = `serve.lock names pid ${named}, which is not a hookbench serve of this folder: the lock is stale (${reason}); nothing was stopped`;
    logger.info(line);
    void vscode.window.showInformationMessage(`Hookbench: ${line}.`);
  }
  await start();
}
