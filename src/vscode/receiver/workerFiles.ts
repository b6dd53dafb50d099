/**
 * The worker's files in the workspace: a wrangler config added, edited or removed, or the secrets
 * file beside it. serve reads them at start only (its own watch rebuilds the sources), so the
 * receiver restarts when one changes, as wrangler dev does.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import { SECRETS_FILE_NAMES, WRANGLER_CONFIG_NAMES } from '../../core/workerConfig/wranglerConfig';

/** What the running receiver was launched with: its worker flags (as JSON) and their config. */
export interface LaunchedWorker {
  readonly flags: string;
  readonly config: string | undefined;
}

/** Calls `changed` with the path of every config or secrets file created, changed or deleted under `root`. */
export function watchWorkerFiles(store: DisposableStore, root: vscode.WorkspaceFolder, changed: (file: string) => void): void {
  const names = [...WRANGLER_CONFIG_NAMES, ...SECRETS_FILE_NAMES].join(',');
  const watcher = store.add(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, `**/{${names}}`)));
  const onFile = (uri: vscode.Uri) => changed(uri.fsPath);
  store.add(watcher.onDidCreate(onFile));
  store.add(watcher.onDidChange(onFile));
  store.add(watcher.onDidDelete(onFile));
}

/**
 * Why a change of `file` restarts the receiver launched with `launched` (`flagsNow`: the worker
 * flags the workspace asks for now, as JSON; `shown`: the file as the log names it), or undefined
 * when it does not: the workspace's worker changed, or the file is the config it runs or the
 * secrets beside it.
 */
export function restartReason(file: string, launched: LaunchedWorker, flagsNow: string, shown: string): string | undefined {
  const { config } = launched;
  const beside = config ? SECRETS_FILE_NAMES.map((name) => path.join(path.dirname(config), name)) : [];
  if (flagsNow !== launched.flags) return `the workspace's worker changed (${shown})`;
  if (file === config || beside.includes(file)) return `${shown} changed`;
  return undefined;
}
