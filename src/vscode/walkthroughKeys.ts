/**
 * Context keys the walkthrough's steps complete on, so a step is ticked when it is really done
 * (a secret stored, a delivery received), not when its command was merely opened and cancelled.
 */
import * as vscode from 'vscode';
import type { DisposableStore } from '../core/events';
import type { Secrets } from './secrets';
import type { ExplorerSession } from './views/explorerSession';

export function trackWalkthrough(store: DisposableStore, secrets: Secrets, explorer: ExplorerSession): void {
  const secretKey = async () => {
    const set = Object.keys(await secrets.asEnvironment()).length > 0;
    await vscode.commands.executeCommand('setContext', 'hookbench.hasSecret', set);
  };
  void secretKey();
  store.add(secrets.onDidChange(() => void secretKey()));
  let delivered = false;
  store.add(
    explorer.onLive((message) => {
      if (delivered || message.type !== 'delivery') return;
      delivered = true;
      void vscode.commands.executeCommand('setContext', 'hookbench.hasDelivery', true);
    }),
  );
}
