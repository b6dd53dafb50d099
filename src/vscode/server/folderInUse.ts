/**
 * When another receiver holds the data folder (another VS Code window on this folder, or this
 * browser tab before a reload, whose extension host code-server keeps alive for a while): offer to
 * take it over, instead of a receiver that stays failed.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { isRunning } from '../../core/childProcess';
import type { Logger } from '../../core/log';
import { FOLDER_IN_USE } from '../../core/contract/serveFailures';


/** Whether `pid` is a `hookbench serve` (Linux: its command line); elsewhere the lock's word is taken. */
function isHookbenchServe(pid: number): boolean {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.includes('serve') && args.some((arg) => arg.endsWith('cli.js'));
  } catch {
    return process.platform !== 'linux';
  }
}

/** Stops the holder (SIGTERM: it drains and commits), waits for it to go (at most 20 s). */
async function stopHolder(pid: number): Promise<boolean> {
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 20_000; waited += 100) {
    if (!isRunning(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isRunning(pid);
}

/** Offers Take Over; `start` starts this window's receiver again. */
export async function offerTakeOver(message: string, logger: Logger, start: () => Promise<unknown>): Promise<void> {
  const [, folder, pidText] = FOLDER_IN_USE.exec(message) ?? [];
  const pid = Number(pidText);
  const choice = await vscode.window.showWarningMessage(
    `Hookbench: another receiver (pid ${pid}) uses ${folder}: another VS Code window on this folder, or this tab before a reload.`,
    'Take Over',
    'Show Log',
  );
  if (choice === 'Show Log') return void vscode.commands.executeCommand('hookbench.showLog');
  if (choice !== 'Take Over') return;
  if (!isHookbenchServe(pid)) {
    void vscode.window.showErrorMessage(`Hookbench: pid ${pid} is not a Hookbench receiver; nothing was stopped. Delete the stale lock in ${folder}/_hookbench if no Hookbench runs.`);
    return;
  }
  logger.info(`taking the data folder over from the receiver of pid ${pid}`);
  if (!(await stopHolder(pid))) {
    void vscode.window.showErrorMessage(`Hookbench: the receiver of pid ${pid} did not stop within 20 s.`);
    return;
  }
  await start();
}
