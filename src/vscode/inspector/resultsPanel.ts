/**
 * The SQL console's results: one webview panel per console, beside it, drawn from the last run's
 * outcome (resultsHtml.ts). Its buttons run the console's commands; nothing but the result's rows
 * reaches the webview (no token, no URL of the receiver).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ConsoleMode } from '../../core/inspector/consoleMode';
import { resultsHtml, type RunOutcome } from './resultsHtml';
import { consoleLabel, consoleName, type ConsoleRef } from './consoleFiles';

export const RESULTS_VIEW_TYPE = 'hookbench.sqlResults';
/** Rows drawn in the table; the rest are counted ("N more rows not shown") and exported. */
export const MAX_SHOWN_ROWS = 500;

const COMMANDS: Record<string, string> = { run: 'hookbench.sql.run', history: 'hookbench.sql.history', exportCsv: 'hookbench.sql.exportCsv', exportJson: 'hookbench.sql.exportJson' };

export class ResultsPanel implements vscode.Disposable {
  private outcomeNow: RunOutcome | undefined;
  private modeNow: ConsoleMode = 'readOnly';
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly ref: ConsoleRef,
    private readonly consoleUri: vscode.Uri,
    private readonly onClosed: () => void,
  ) {
    this.panel = vscode.window.createWebviewPanel(RESULTS_VIEW_TYPE, `Results: ${consoleName(ref)}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [] });
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
      this.panel.onDidDispose(() => this.dispose()),
    );
    this.draw();
  }

  readonly panel: vscode.WebviewPanel;

  get outcome(): RunOutcome | undefined {
    return this.outcomeNow;
  }

  show(outcome: RunOutcome | undefined, mode: ConsoleMode): void {
    this.outcomeNow = outcome;
    this.modeNow = mode;
    this.draw();
    if (!this.panel.visible) this.panel.reveal(undefined, true);
  }

  private draw(): void {
    this.panel.webview.html = resultsHtml({ nonce: randomBytes(16).toString('base64'), instance: consoleLabel(this.ref), mode: this.modeNow, outcome: this.outcomeNow, maxShown: MAX_SHOWN_ROWS });
  }

  /** Only `{type: 'command', command}` with a known command is acted on. */
  private receive(message: unknown): void {
    const { type, command } = (message ?? {}) as { type?: unknown; command?: unknown };
    if (type !== 'command' || typeof command !== 'string' || !Object.hasOwn(COMMANDS, command)) return;
    void vscode.commands.executeCommand(COMMANDS[command]!, this.consoleUri);
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.onClosed();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}
