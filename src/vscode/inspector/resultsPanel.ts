/**
 * The SQL console's results: one webview panel per console, beside it, drawn from the last run's
 * outcome (resultsHtml.ts), and given back by VS Code with it after a window reload or a restart
 * (the page hands its state to VS Code; `SqlConsoles.revive`). Its buttons run the console's commands; nothing but the result's rows
 * reaches the webview (no token, no URL of the receiver).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ConsoleMode } from '../../core/inspector/consoleMode';
import { parseResultsMessage, type ResultsMessage } from '../../core/contract/panelMessages';
import { resultsHtml, type RunOutcome } from './resultsHtml';
import { consoleLabel, consoleName, type ConsoleRef } from './consoleFiles';

export const RESULTS_VIEW_TYPE = 'hookbench.sqlResults';
/** Rows drawn in the table; the rest are counted ("N more rows not shown") and exported. */
export const MAX_SHOWN_ROWS = 500;

const COMMANDS: Record<ResultsMessage['command'], string> = {
  run: 'hookbench.sql.run',
  history: 'hookbench.sql.history',
  exportCsv: 'hookbench.sql.exportCsv',
  exportJson: 'hookbench.sql.exportJson',
};

/** The webview's options, when it is created and when VS Code gives it back after a reload. */
const OPTIONS: vscode.WebviewOptions = { enableScripts: true, localResourceRoots: [] };

export class ResultsPanel implements vscode.Disposable {
  private modeNow: ConsoleMode = 'readOnly';
  private readonly disposables: vscode.Disposable[] = [];

  /** A new panel beside the console, empty until a run. */
  static create(ref: ConsoleRef, consoleUri: vscode.Uri, onClosed: () => void): ResultsPanel {
    const panel = vscode.window.createWebviewPanel(
      RESULTS_VIEW_TYPE,
      `Results: ${consoleName(ref)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      OPTIONS,
    );
    return new ResultsPanel(panel, ref, consoleUri, onClosed, undefined);
  }

  /** A panel VS Code restored (a window reload, a restart), showing the outcome it showed before. */
  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly ref: ConsoleRef,
    private readonly consoleUri: vscode.Uri,
    private readonly onClosed: () => void,
    private outcomeNow: RunOutcome | undefined,
  ) {
    panel.webview.options = OPTIONS;
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
      this.panel.onDidDispose(() => this.dispose()),
    );
    this.draw();
  }

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
    this.panel.webview.html = resultsHtml({
      nonce: randomBytes(16).toString('base64'),
      instance: consoleLabel(this.ref),
      console: this.consoleUri.toString(),
      mode: this.modeNow,
      outcome: this.outcomeNow,
      maxShown: MAX_SHOWN_ROWS,
    });
  }

  /** Only a message parseResultsMessage accepts is acted on. */
  private receive(raw: unknown): void {
    const message = parseResultsMessage(raw);
    if (message) void vscode.commands.executeCommand(COMMANDS[message.command], this.consoleUri);
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
