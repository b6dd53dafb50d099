/**
 * When the receiver's port is taken: offer the next free port after it (saved to the workspace setting) or
 * a look at what holds it, instead of an error the user has to decode.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import { portInUse } from '../../core/contract/serveHandshake';
import { nextFreePort } from '../../core/nextFreePort';

/** What listens on the port, as the system tools say it (ss on Linux, lsof elsewhere). */
export async function whoHolds(port: number): Promise<string> {
  const tries: [string, string[]][] = [
    ['ss', ['-ltnp', `sport = :${port}`]],
    ['lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN']],
  ];
  for (const [command, args] of tries) {
    try {
      const { stdout } = await promisify(execFile)(command, args, { timeout: 5000 });
      if (stdout.trim()) return stdout.trim();
    } catch {
      // Not installed here: try the next one.
    }
  }
  return `no tool here (ss, lsof) could say which program listens on port ${port}`;
}

/** The pid of the process listening on TCP `port`, as `ss` names it (Linux), when it is this user's. */
export async function listenerPid(port: number): Promise<number | undefined> {
  try {
    const { stdout } = await promisify(execFile)('ss', ['-ltnpH', `sport = :${port}`], { timeout: 5000 });
    const pid = /\bpid=(\d+)/.exec(stdout)?.[1];
    return pid === undefined ? undefined : Number(pid);
  } catch {
    // No ss here: nothing to attach to.
    return undefined;
  }
}

/** Offers the ways out; resolves once the user chose (or dismissed). `start` starts the receiver again. */
export async function offerPortChoices(message: string, logger: Logger, start: () => Promise<unknown>): Promise<void> {
  const port = portInUse(message)?.port ?? NaN;
  const choice = await vscode.window.showErrorMessage(
    `Hookbench: port ${port} is in use by another program, so the receiver could not start.`,
    'Use Another Port',
    'Show What Holds It',
  );
  if (choice === 'Use Another Port') {
    const settings = vscode.workspace.getConfiguration('hookbench');
    // The render emulator's port is the receiver's too: the next free one is past it.
    const next = await nextFreePort(settings.get<string>('receiver.host', '127.0.0.1'), port, [settings.get<number>('render.port', 8788)]);
    await settings.update('receiver.port', next, vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
    const line = `port ${port} was in use: the receiver now uses port ${next}, the next free one (saved to the workspace's hookbench.receiver.port)`;
    logger.info(line);
    void vscode.window.showInformationMessage(`Hookbench: ${line}.`);
    await start();
  } else if (choice === 'Show What Holds It') {
    logger.info(`what listens on port ${port}:\n${await whoHolds(port)}`);
    void vscode.commands.executeCommand('hookbench.showLog');
  }
}
