/**
 * The state timeline of an instance: one webview panel per instance, read from the instance's
 * state history through the admin API's read-only query, stepped with Prev/Next (buttons, arrow
 * keys, commands), read again when the live feed says the instance stored an event, and each
 * point's state opened as a read-only JSON document (scheme `hookbench-state`). VS Code gives a
 * panel back after a window reload or a restart, at the step it showed (`Timelines.revive`).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { InstanceRef } from '../../core/contract/instances';
import { STATE_HISTORY_EXISTS, STATE_HISTORY_QUERY, stateHistoryStateQuery, type StateHistoryRow } from '../../core/contract/timeline';
import { parseTimelinePanelState } from '../../core/contract/editors';
import { parseTimelineMessage } from '../../core/contract/panelMessages';
import { step, timelineFrom } from '../../core/inspector/timeline';
import type { ExplorerSession } from '../views/explorerSession';
import { consoleKey } from './consoleFiles';
import { timelineHtml, type TimelineView } from './timelineHtml';

export const TIMELINE_VIEW_TYPE = 'hookbench.stateTimeline';
export const STATE_SCHEME = 'hookbench-state';
/** Steps read at most: the newest ones (the built-in worker keeps as many as its events). */
const MAX_STEPS = 1000;

/** The webview's options, when it is created and when VS Code gives it back after a reload. */
const OPTIONS: vscode.WebviewOptions = { enableScripts: true, localResourceRoots: [] };

export class TimelinePanel implements vscode.Disposable {
  private view: TimelineView = { kind: 'steps', steps: [], index: 0 };
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  private loading: Promise<void> = Promise.resolve();

  /** A new panel in the active group. */
  static create(ref: InstanceRef, session: ExplorerSession, onClosed: () => void): TimelinePanel {
    const panel = vscode.window.createWebviewPanel(TIMELINE_VIEW_TYPE, `Timeline: ${ref.name}`, vscode.ViewColumn.Active, OPTIONS);
    return new TimelinePanel(panel, ref, session, onClosed, undefined);
  }

  /**
   * A panel on `ref`, also one VS Code restored after a reload; `pinned` is the `seq` of the step it
   * shows when that is not the newest (undefined: it follows the newest).
   */
  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly ref: InstanceRef,
    private readonly session: ExplorerSession,
    private readonly onClosed: () => void,
    private pinned: number | undefined,
  ) {
    panel.webview.options = OPTIONS;
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
      this.panel.onDidDispose(() => this.dispose()),
      session.onLive((message) => {
        // The feed's hello: the receiver (re)started, as after a reload, and the history can be read.
        if (message.type === 'hello') void this.reload();
        else if (
          (message.type === 'state' || message.type === 'event' || (message.type === 'instance' && message.kind === 'changed')) &&
          message.namespace === ref.namespace &&
          message.name === ref.name
        )
          void this.reload();
      }),
    );
  }

  /** What the panel shows. */
  get current(): TimelineView {
    return this.view;
  }

  /** Reads the history again; the newest step is shown when the last one was (or none was). */
  reload(): Promise<void> {
    this.loading = this.loading.then(() => this.load());
    return this.loading;
  }

  private async load(): Promise<void> {
    const client = this.session.client;
    if (!client) return this.draw({ kind: 'error', message: 'The Hookbench receiver is not running: start it to read this instance.' });
    try {
      const exists = await client.queryResult(this.ref.namespace, this.ref.name, STATE_HISTORY_EXISTS);
      if (Number(exists.rows[0]?.[0]) === 0) return this.draw({ kind: 'missing' });
      const result = await client.queryResult(this.ref.namespace, this.ref.name, STATE_HISTORY_QUERY, [MAX_STEPS]);
      const rows = result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i]])) as unknown as StateHistoryRow);
      const steps = timelineFrom(rows);
      const kept = steps.findIndex((s) => s.seq === this.pinned);
      this.draw({ kind: 'steps', steps, index: kept < 0 ? Math.max(0, steps.length - 1) : kept });
    } catch (error) {
      this.draw({ kind: 'error', message: (error as Error).message });
    }
  }

  private draw(view: TimelineView): void {
    this.view = view;
    if (view.kind === 'steps' && view.steps.length > 0) this.pinned = view.index < view.steps.length - 1 ? view.steps[view.index]!.seq : undefined;
    const state = { ...this.ref, ...(this.pinned === undefined ? {} : { seq: this.pinned }) };
    this.panel.webview.html = timelineHtml(randomBytes(16).toString('base64'), `${this.ref.name} (${this.ref.namespace})`, view, state);
  }

  /** Moves by `delta` steps (or to step `to`); answers the index now shown. */
  move(delta: number, to?: number): number {
    if (this.view.kind !== 'steps') return 0;
    const index = to === undefined ? step(this.view.index, delta, this.view.steps.length) : step(to, 0, this.view.steps.length);
    if (index !== this.view.index) this.draw({ ...this.view, index });
    return index;
  }

  /** The state before or after the shown step, as a read-only JSON document. */
  async open(which: 'before' | 'after'): Promise<vscode.TextDocument | undefined> {
    if (this.view.kind !== 'steps') return undefined;
    const shown = this.view.steps[this.view.index];
    if (!shown) return undefined;
    const uri = vscode.Uri.from({
      scheme: STATE_SCHEME,
      path: `/${encodeURIComponent(this.ref.namespace)}/${encodeURIComponent(this.ref.name)}/${shown.seq}-${which}.json`,
      query: `title=${encodeURIComponent(`${shown.eventType} ${which}`)}`,
    });
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, 'json');
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    return document;
  }

  /** Only a message parseTimelineMessage accepts is acted on. */
  private receive(raw: unknown): void {
    const message = parseTimelineMessage(raw);
    if (!message) return;
    switch (message.command) {
      case 'prev':
        return void this.move(-1);
      case 'next':
        return void this.move(1);
      case 'select':
        return void this.move(0, Number(message.arg));
      case 'openBefore':
        return void this.open('before');
      case 'openAfter':
        return void this.open('after');
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.onClosed();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

/** The open timelines, and the read-only JSON documents of their states. */
export class Timelines implements vscode.Disposable {
  private readonly panels = new Map<string, TimelinePanel>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly live: vscode.Disposable;

  constructor(private readonly session: ExplorerSession) {
    // A state document restored before the receiver ran says so: it is read again once it runs.
    this.live = session.onLive((message) => {
      if (message.type !== 'hello') return;
      for (const document of vscode.workspace.textDocuments) if (document.uri.scheme === STATE_SCHEME) this.changed.fire(document.uri);
    });
  }

  async show(ref: InstanceRef): Promise<TimelinePanel> {
    const key = consoleKey(ref);
    let panel = this.panels.get(key);
    if (panel) panel.panel.reveal();
    else {
      panel = TimelinePanel.create(ref, this.session, () => this.panels.delete(key));
      this.panels.set(key, panel);
    }
    await panel.reload();
    return panel;
  }

  /** A timeline VS Code gives back after a reload: read again at the step it showed (true), or closed when its state names no instance. */
  async revive(webview: vscode.WebviewPanel, raw: unknown): Promise<boolean> {
    const state = parseTimelinePanelState(raw);
    const ref = state && { namespace: state.namespace, name: state.name };
    if (!ref || this.panels.has(consoleKey(ref))) {
      webview.dispose();
      return false;
    }
    const key = consoleKey(ref);
    const panel = new TimelinePanel(webview, ref, this.session, () => this.panels.delete(key), state.seq);
    this.panels.set(key, panel);
    await panel.reload();
    return true;
  }

  /** The panel a command is about: the one given, the active one, or the only one. */
  active(): TimelinePanel | undefined {
    const all = [...this.panels.values()];
    return all.find((p) => p.panel.active) ?? (all.length === 1 ? all[0] : undefined);
  }

  /**
   * The text of the state document `/<namespace>/<name>/<seq>-before|after.json`, read from the
   * history again, so it is what is stored; undefined for a path that names no state (a folder).
   */
  stateText(uri: vscode.Uri): Promise<string> | undefined {
    const [namespace, name, file, ...rest] = uri.path.split('/').slice(1).map(decodeURIComponent);
    const match = /^(\d+)-(before|after)\.json$/.exec(file ?? '');
    if (!namespace || !name || !match || rest.length > 0) return undefined;
    return this.readState(namespace, name, Number(match[1]), match[2] as 'before' | 'after');
  }

  private async readState(namespace: string, name: string, seq: number, which: 'before' | 'after'): Promise<string> {
    const client = this.session.client;
    if (!client) return '// The Hookbench receiver is not running: this state is read again once it runs.';
    const result = await client.queryResult(namespace, name, stateHistoryStateQuery(which), [seq]);
    const text = result.rows[0]?.[0];
    if (text === undefined) return '// This step is no longer stored (retention).';
    if (typeof text !== 'string') return 'null\n';
    try {
      return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
    } catch {
      return text;
    }
  }

  dispose(): void {
    this.live.dispose();
    this.changed.dispose();
    for (const panel of [...this.panels.values()]) panel.dispose();
  }
}
