// What the integration tests share: the extension's API, the receiver and its admin API, and
// what the results webview shows.
import * as vscode from 'vscode';
import type { DeliverySummary } from '../../src/core/contract/deliveries';
import { nullLogger } from '../../src/core/log';
import type { HookbenchApi, ReceiverState } from '../../src/vscode/api';
import { AdminClient } from '../../src/vscode/client/adminClient';
import { readWebview } from './reporter';

export type { HookbenchApi };

/** Reads `read` until `done` holds (what a command or a save did shows up on its own time); rejects with the last value after `timeoutMs`. */
export async function until<T>(read: () => Thenable<T> | Promise<T> | T, done: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function api(): Promise<HookbenchApi> {
  const ext = vscode.extensions.getExtension<HookbenchApi>('hookbench.hookbench')!;
  return ext.activate();
}

/** Starts the receiver as Start Receiver does; resolves with its URL (rejects when it could not start). */
export async function startReceiver(): Promise<string> {
  const url = await vscode.commands.executeCommand<string | undefined>('hookbench.receiver.start');
  if (!url) throw new Error('the receiver did not start (the log says why)');
  return url;
}

/** The receiver's admin API, as any client of it: its URL and the session's token from the API. */
export async function adminClient(hookbench: HookbenchApi): Promise<AdminClient> {
  return new AdminClient(await hookbench.receiver.ready(), hookbench.receiver.adminToken, nullLogger);
}

export /** Resolves at the next time the receiver is running again after having stopped. */
function nextRestart(hookbench: HookbenchApi, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let stopped = false;
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error('the receiver did not restart'));
    }, timeoutMs);
    const sub = hookbench.receiver.onDidChangeState((state: ReceiverState) => {
      if (state.kind === 'stopped') stopped = true;
      if (state.kind === 'running' && stopped) {
        clearTimeout(timer);
        sub.dispose();
        resolve(state.url);
      }
    });
  });
}

/**
 * Stores a webhook secret as Set Webhook Secret does (the receiver restarts when it changes, and
 * the command returns once it runs again); resolves with the receiver's URL.
 */
export async function withSecret(hookbench: HookbenchApi, env: string, value: string): Promise<string> {
  await startReceiver();
  await vscode.commands.executeCommand('hookbench.secret.set', env, value);
  return hookbench.receiver.ready();
}

/** What the SQL console's results webview shows: its statement, table, error and mode, and its page. */
export interface ResultsShown {
  /** The page's title: "Results: " and what the console is on. */
  readonly title: string;
  readonly sql: string;
  readonly columns: string[];
  /** Each row's cells as shown (text). */
  readonly rows: string[][];
  readonly error: string | null;
  readonly mode: string;
  /** The page's body as drawn. */
  readonly html: string;
}

/**
 * What the results webview titled `title`… shows once it shows the outcome of `sql`, read in the
 * real workbench (the launcher looks inside the webview's page).
 */
export function resultsShown(sql: string, title = 'Results: '): Promise<ResultsShown> {
  const read = `({
    title: document.title,
    sql: document.querySelector('pre.sql')?.textContent ?? '',
    columns: [...document.querySelectorAll('#results thead th')].map((th) => th.textContent),
    rows: [...document.querySelectorAll('#results tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent)),
    error: document.querySelector('#error')?.textContent ?? null,
    mode: document.querySelector('#mode')?.textContent ?? '',
    html: document.body.innerHTML,
  })`;
  return readWebview<ResultsShown>(title, read, `document.querySelector('pre.sql')?.textContent === ${JSON.stringify(sql)}`);
}

/** The ids of the deliveries the receiver has logged now: what a later `newDeliveries` leaves out. */
export async function deliveryIds(client: AdminClient): Promise<Set<string>> {
  return new Set((await client.deliveries(200)).map((d) => d.id));
}

/** The deliveries logged since `known` was read, newest first, once there are `count` of them (within 15 s). */
export async function newDeliveries(client: AdminClient, known: ReadonlySet<string>, count = 1): Promise<DeliverySummary[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const fresh = (await client.deliveries(200)).filter((d) => !known.has(d.id));
    if (fresh.length >= count) return fresh;
    if (Date.now() > deadline) throw new Error(`${fresh.length} of ${count} new deliveries arrived`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Restarts the receiver on the worker `entry` (undefined: the workspace's own again); resolves with its URL once it listens. */
export async function serveWorkerEntry(hookbench: HookbenchApi, entry: string | undefined): Promise<string> {
  const restarted = nextRestart(hookbench, 45_000);
  await vscode.workspace.getConfiguration('hookbench').update('worker.entry', entry, vscode.ConfigurationTarget.Workspace);
  return restarted;
}
