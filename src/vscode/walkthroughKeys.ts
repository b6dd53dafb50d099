/**
 * The walkthrough's steps tick when what they ask for is really done (the receiver runs, a secret
 * is stored, a delivery arrived, a public URL is up), not when their command was merely opened and
 * cancelled. Each is said twice: a context key (the step's completion event, and what `when`
 * clauses read) and VS Code's own "mark step complete". The second is needed because VS Code's
 * walkthrough service may be created only when the walkthrough is first shown: a key that was
 * already true then never counts as an event (docs/architecture.md, "The walkthrough").
 */
import * as vscode from 'vscode';
import type { DisposableStore, Event } from '../core/events';
import type { Secrets } from './secrets';
import type { ExplorerSession } from './views/explorerSession';

const WALKTHROUGH = 'hookbench.hookbench#hookbench.gettingStarted';

/** What the walkthrough's steps wait for. */
export interface WalkthroughSignals {
  readonly secrets: Secrets;
  readonly explorer: ExplorerSession;
  /** Fires with true whenever the receiver is running. */
  readonly receiverRunning: Event<boolean>;
  readonly receiverRunningNow: boolean;
  /** Fires with true whenever a public URL is up. */
  readonly exposed: Event<boolean>;
}

export function trackWalkthrough(store: DisposableStore, signals: WalkthroughSignals): void {
  const done = new Set<string>();
  /**
   * What this module last gave each key: a key is sent to the window only when that changes
   * (every delivery said "hasDelivery" again: a command to the window per webhook under load).
   */
  const given = new Map<string, boolean>();
  const setKey = (key: string, value: boolean) => {
    if (given.get(key) === value) return;
    given.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  };
  /** Ticks `step` once per window (its context key too); VS Code keeps the tick across sessions. */
  const tick = (step: string, key: string) => {
    setKey(key, true);
    if (done.has(step)) return;
    done.add(step);
    // An older VS Code without the command still has the context key's completion event.
    void Promise.resolve(vscode.commands.executeCommand('welcome.markStepComplete', `${WALKTHROUGH}#${step}`)).catch(() => undefined);
  };
  const secretKey = async () => {
    const set = Object.keys(await signals.secrets.asEnvironment()).length > 0;
    if (set) tick('secret', 'hookbench.hasSecret');
    else setKey('hookbench.hasSecret', false);
  };
  void secretKey();
  store.add(signals.secrets.onDidChange(() => void secretKey()));
  if (signals.receiverRunningNow) tick('start', 'hookbench.receiverRunning');
  store.add(
    signals.receiverRunning((running) => {
      if (running) tick('start', 'hookbench.receiverRunning');
    }),
  );
  store.add(
    signals.exposed((on) => {
      if (on) tick('expose', 'hookbench.exposed');
    }),
  );
  store.add(
    signals.explorer.onLive((message) => {
      if (message.type === 'delivery') tick('send', 'hookbench.hasDelivery');
    }),
  );
}
