// What the integration tests share: the extension's API, waiting for the receiver and the trees.
import * as vscode from 'vscode';
import type { ServeState } from '../../src/vscode/receiver/serveProcess';
import type { HookbenchApi } from '../../src/vscode/hookbench';
import type { AgentNode } from '../../src/vscode/views/agentsTree';

export async function api(): Promise<HookbenchApi> {
  const ext = vscode.extensions.getExtension<HookbenchApi>('hookbench.hookbench')!;
  return ext.activate();
}

export /** Resolves at the next time the receiver is running again after having stopped. */
function nextRestart(hookbench: HookbenchApi, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let stopped = false;
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error('the receiver did not restart'));
    }, timeoutMs);
    const sub = hookbench.server.onDidChangeState((state: ServeState) => {
      if (state.kind === 'stopped') stopped = true;
      if (state.kind === 'running' && stopped) {
        clearTimeout(timer);
        sub.dispose();
        resolve(state.url);
      }
    });
  });
}

export /** Resolves once `predicate` holds after a tree change (the trees redraw on the live feed). */
async function untilTree<T>(hookbench: HookbenchApi, read: () => Promise<T>, predicate: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!predicate(value)) {
    if (Date.now() > deadline) throw new Error(`the tree never showed what was expected: ${JSON.stringify(value).slice(0, 300)}`);
    await new Promise<void>((resolve) => {
      const sub = hookbench.explorer.onDidChange(() => {
        sub.dispose();
        resolve();
      });
      setTimeout(() => {
        sub.dispose();
        resolve();
      }, 500);
    });
    value = await read();
  }
  return value;
}

/** The instances under the first local namespace, read from fresh roots as a redraw does. */
export async function instancesNow(hookbench: HookbenchApi): Promise<AgentNode[]> {
  const tree = hookbench.trees.agents;
  const namespace = (await tree.getChildren()).find((n) => n.kind === 'namespace');
  return namespace ? tree.getChildren(namespace) : [];
}

export async function withSecret(hookbench: HookbenchApi, env: string, value: string): Promise<string> {
  const url = await hookbench.server.start();
  if ((await hookbench.secrets.get(env)) === value) return url;
  const restarted = nextRestart(hookbench);
  await hookbench.secrets.set(env, value);
  return restarted;
}


/** Restarts the receiver on the worker `entry` (undefined: the workspace's own again); resolves with its URL once it listens. */
export async function serveWorkerEntry(hookbench: HookbenchApi, entry: string | undefined): Promise<string> {
  const restarted = nextRestart(hookbench, 45_000);
  await vscode.workspace.getConfiguration('hookbench').update('worker.entry', entry, vscode.ConfigurationTarget.Workspace);
  return restarted;
}
