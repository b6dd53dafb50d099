/**
 * The user's worker's failures where a developer looks (docs/runtime.md, "Errors and stack
 * traces"): a build or load failure as Problems on its file and line, a status bar item while
 * serve runs the previous build, and a toast with Show Problem; a handler that threw as a toast
 * with its request and the source line, at most once per distinct error in a few seconds.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore, type Event } from '../../core/events';
import type { SourceLocation, WorkerException, WorkerProblem, WorkerStatus } from '../../core/contract/workerProblems';
import type { ServeState, WorkerReport } from './serveProcess';

/** The same exception is shown again only after this long. */
export const EXCEPTION_QUIET_MS = 10_000;

export const BUILD_FAILED_TEXT = 'worker: build failed, serving the previous build';
const NOT_RUNNING_TEXT = 'worker: build failed, not running';
const FIXED_TEXT = 'the worker builds again, and serve runs the new build.';

export class WorkerProblems implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly diagnostics: vscode.DiagnosticCollection;
  private readonly status: vscode.StatusBarItem;
  /** The problems last shown in a toast: the same failure saved again does not toast again. */
  private shown = '';
  /** The first problem of the failure now, undefined while the worker builds. */
  private current: WorkerProblem | undefined;
  /** When each distinct exception was last shown. */
  private readonly exceptionsShown = new Map<string, number>();

  constructor(
    reports: Event<WorkerReport>,
    private readonly now: () => number = Date.now,
  ) {
    this.diagnostics = this.store.add(vscode.languages.createDiagnosticCollection('hookbench'));
    this.status = this.store.add(vscode.window.createStatusBarItem('hookbench.worker', vscode.StatusBarAlignment.Left, 49));
    this.status.name = 'Hookbench Worker';
    this.status.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    this.store.add(reports((report) => (report.kind === 'status' ? this.showStatus(report.status) : this.showException(report.exception))));
  }

  private showStatus(status: WorkerStatus): void {
    if (status.state === 'ok') {
      this.diagnostics.clear();
      this.status.hide();
      this.current = undefined;
      // VS Code cannot take back the failure's toast: say that it is over (this one hides itself).
      if (this.shown !== '') void vscode.window.showInformationMessage(`Hookbench: ${FIXED_TEXT}`);
      this.shown = '';
      return;
    }
    this.diagnostics.clear();
    for (const [file, problems] of byFile(status.problems)) this.diagnostics.set(vscode.Uri.file(file), problems.map(diagnostic));
    const first = status.problems[0];
    this.current = first;
    this.status.text = `$(error) ${status.serving === 'previous' ? BUILD_FAILED_TEXT : NOT_RUNNING_TEXT}`;
    this.status.tooltip = new vscode.MarkdownString(status.problems.map((p) => `- ${where(p.location)}${escape(p.message)}`).join('\n'));
    this.status.command = first?.location ? openCommand(first.location) : 'workbench.actions.view.problems';
    this.status.show();
    const key = JSON.stringify(status.problems);
    if (key === this.shown || !first) return;
    this.shown = key;
    const headline = status.serving === 'previous' ? 'the worker did not build; serving the previous build' : 'the worker did not build';
    void vscode.window.showErrorMessage(`Hookbench: ${headline}: ${where(first.location)}${first.message}`, 'Show Problem').then((choice) => {
      if (choice === 'Show Problem') this.showProblem();
    });
  }

  /**
   * Show Problem, clicked on a failure's toast, perhaps long after: the problem there is now (the
   * toast's, or the one a later save made), or a word that the worker builds again.
   */
  private showProblem(): void {
    if (this.current) void reveal(this.current.location);
    else void vscode.window.showInformationMessage(`Hookbench: that problem is gone: ${FIXED_TEXT}`);
  }

  private showException(exception: WorkerException): void {
    const key = `${exception.message}@${where(exception.location)}`;
    const last = this.exceptionsShown.get(key);
    const now = this.now();
    if (last !== undefined && now - last < EXCEPTION_QUIET_MS) return;
    this.exceptionsShown.set(key, now);
    for (const [seen, at] of this.exceptionsShown) if (now - at >= EXCEPTION_QUIET_MS) this.exceptionsShown.delete(seen);
    const location = exception.location;
    const action = location ? `Open ${path.basename(location.file)}:${location.line}` : undefined;
    // A request's (`POST /webhooks/github`) or a handler the platform called (`queue() of jobs`).
    const what = exception.method.endsWith('()') ? `${exception.method} of ${exception.path}` : `${exception.method} ${exception.path}`;
    void vscode.window.showErrorMessage(`Hookbench: ${what} threw ${exception.message}`, ...(action ? [action] : []), 'Show Log').then((choice) => {
      if (choice === 'Show Log') void vscode.commands.executeCommand('hookbench.showLog');
      else if (choice && location) void reveal(location);
    });
  }

  dispose(): void {
    this.store.dispose();
  }
}

/**
 * A worker that did not build at start ends serve (there is no previous build to run): saving a
 * file its problems name starts the receiver again, as a rebuild would have.
 */
export function startAgainOnSave(reports: Event<WorkerReport>, receiver: { readonly state: ServeState; start(): Promise<string> }): vscode.Disposable {
  const store = new DisposableStore();
  let files = new Set<string>();
  store.add(
    reports((report) => {
      if (report.kind !== 'status') return;
      const refused = report.status.state === 'failed' && report.status.serving === 'none';
      files = new Set(refused ? report.status.problems.flatMap((p) => (p.location ? [p.location.file] : [])) : []);
    }),
  );
  store.add(
    vscode.workspace.onDidSaveTextDocument((document) => {
      // Its failure is shown already (the Problems, the receiver's status): nothing more to say here.
      if (files.has(document.uri.fsPath) && receiver.state.kind === 'failed') void receiver.start().catch(() => undefined);
    }),
  );
  return store;
}

function byFile(problems: readonly WorkerProblem[]): Map<string, WorkerProblem[]> {
  const files = new Map<string, WorkerProblem[]>();
  for (const problem of problems) {
    if (!problem.location) continue;
    files.set(problem.location.file, [...(files.get(problem.location.file) ?? []), problem]);
  }
  return files;
}

function diagnostic(problem: WorkerProblem): vscode.Diagnostic {
  const position = new vscode.Position(problem.location!.line - 1, problem.location!.column - 1);
  const result = new vscode.Diagnostic(new vscode.Range(position, position), problem.message, vscode.DiagnosticSeverity.Error);
  result.source = problem.kind === 'build' ? 'hookbench (build)' : 'hookbench (load)';
  return result;
}

/** `src/index.ts:3:7: `, relative to the workspace when inside it. */
function where(location: SourceLocation | undefined): string {
  return location ? `${vscode.workspace.asRelativePath(location.file)}:${location.line}:${location.column}: ` : '';
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

function openCommand(location: SourceLocation): vscode.Command {
  return { title: 'Show Problem', command: 'vscode.open', arguments: [vscode.Uri.file(location.file), { selection: rangeAt(location) }] };
}

function rangeAt(location: SourceLocation): vscode.Range {
  const position = new vscode.Position(location.line - 1, location.column - 1);
  return new vscode.Range(position, position);
}

async function reveal(location: SourceLocation | undefined): Promise<void> {
  if (!location) return void vscode.commands.executeCommand('workbench.actions.view.problems');
  await vscode.window.showTextDocument(vscode.Uri.file(location.file), { selection: rangeAt(location) });
}
