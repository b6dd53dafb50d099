/**
 * The inspector (docs/inspector.md): each local instance's SQL console and state timeline, and
 * their commands. Both read through the admin API; only a console the user switched to
 * read-write sends writes, and those run through the instance itself.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import type { Logger } from '../../core/log';
import type { InstanceRef } from '../../core/contract/instances';
import { registerCommand } from '../commands';
import { ReadOnlyFiles } from '../readOnlyFiles';
import type { ExplorerSession } from '../views/explorerSession';
import { RESULTS_VIEW_TYPE } from './resultsPanel';
import { registerSqlConsole } from './sqlConsole';
import { STATE_SCHEME, TIMELINE_VIEW_TYPE, Timelines } from './timelinePanel';

/** Logs what became of a panel VS Code gave back after a reload. */
function restored(logger: Logger, panel: vscode.WebviewPanel, raw: unknown, shown: boolean): void {
  if (shown) logger.info(`restored "${panel.title}"`);
  else logger.warn(`closed a restored "${panel.title}": its state names nothing to show (${JSON.stringify(raw) ?? 'none'})`);
}

/** `storage`: the workspace's private storage, where the consoles' text is kept across reloads. */
export function registerInspector(store: DisposableStore, logger: Logger, session: ExplorerSession, state: vscode.Memento, storage: string): void {
  const consoles = registerSqlConsole(store, logger, session, state, path.join(storage, 'consoles'));
  store.add(
    vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, raw) => restored(logger, panel, raw, consoles.revive(panel, raw)),
    }),
  );
  const timelines = store.add(new Timelines(session));
  const states = new ReadOnlyFiles((uri) => timelines.stateText(uri));
  store.add(vscode.workspace.registerFileSystemProvider(STATE_SCHEME, states, { isCaseSensitive: true, isReadonly: true }));
  store.add(timelines.onDidChange((uri) => states.refresh([uri])));
  store.add(
    vscode.window.registerWebviewPanelSerializer(TIMELINE_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, raw) => restored(logger, panel, raw, await timelines.revive(panel, raw)),
    }),
  );

  // Answers what the timeline shows: its steps and the one shown (other extensions, scripts).
  registerCommand(store, logger, 'hookbench.timeline.open', async (node: unknown) => {
    const ref = node as Partial<InstanceRef> | undefined;
    if (typeof ref?.namespace !== 'string' || typeof ref.name !== 'string') throw new Error('open a state timeline from an instance in the Agents view');
    return (await timelines.show({ namespace: ref.namespace, name: ref.name })).current;
  });
  const active = () => {
    const panel = timelines.active();
    if (!panel) throw new Error('no state timeline is open: open one from an instance in the Agents view');
    return panel;
  };
  registerCommand(store, logger, 'hookbench.timeline.previous', () => active().move(-1));
  registerCommand(store, logger, 'hookbench.timeline.next', () => active().move(1));
  registerCommand(store, logger, 'hookbench.timeline.openState', (which: unknown) => active().open(which === 'before' ? 'before' : 'after'));
}
