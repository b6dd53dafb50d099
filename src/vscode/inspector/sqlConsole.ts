/**
 * The SQL console's commands: open the console of an instance or of a D1 database (from the Agents
 * or Bindings view, or a table there, which also runs `SELECT * FROM "t" LIMIT 100`), run the selection or the whole console
 * (Ctrl/Cmd+Enter, the editor title's Run), switch it to read-write and back, re-run from its
 * history, and export the last result as CSV or JSON.
 */
import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import type { Logger } from '../../core/log';
import type { InstanceRef } from '../../core/contract/instances';
import { ConsoleModes, explainRefusal } from '../../core/inspector/consoleMode';
import { toCsv, toJson } from '../../core/inspector/resultsExport';
import { browseSql } from '../../core/contract/tableSchema';
import { parseResultsPanelState } from '../../core/contract/editors';
import { registerCommand } from '../commands';
import type { ExplorerSession } from '../views/explorerSession';
import { ConsoleFiles, consoleKey, consoleLabel, consoleName, isD1, SQL_SCHEME, type ConsoleRef, type D1Ref } from './consoleFiles';
import { QueryHistory } from './queryHistory';
import type { RunOutcome } from './resultsHtml';
import { ResultsPanel } from './resultsPanel';

/** What opens a console: an instance or D1 node, a table node, or the same fields from a caller. */
type ConsoleTarget = (InstanceRef & { readonly agent?: string }) | D1Ref;
type Opening = ConsoleTarget & { readonly table?: string };

/** The target a command argument names: `{d1}` for a D1 database, `{namespace, name}` for an instance. */
function targetOf(node: unknown): Opening | undefined {
  const given = node as { d1?: unknown; namespace?: unknown; name?: unknown; agent?: unknown; table?: unknown } | undefined;
  const table = typeof given?.table === 'string' ? { table: given.table } : {};
  if (typeof given?.d1 === 'string') return { d1: given.d1, ...table };
  if (typeof given?.namespace === 'string' && typeof given.name === 'string')
    return { namespace: given.namespace, name: given.name, ...(typeof given.agent === 'string' ? { agent: given.agent } : {}), ...table };
  return undefined;
}

function consoleHeader(ref: ConsoleRef): string {
  if (isD1(ref))
    return `-- ${ref.d1} (D1 database): Ctrl+Enter (⌘+Enter) runs the selection, or the whole console.\n-- Read-only: statements run on a copy of the database; the worker writes to it through its binding.\nSELECT name, type FROM sqlite_master ORDER BY name\n`;
  return `-- ${ref.name} (${ref.namespace}): Ctrl+Enter (⌘+Enter) runs the selection, or the whole console.\n-- Read-only until you switch the console to read-write (the lock in the editor title).\nSELECT name, type FROM sqlite_master ORDER BY name\n`;
}

const WRITABLE_KEY = 'hookbench.sqlConsoleWritable';
/** The active console is a D1 database's, which stays read-only (no lock in its editor title). */
const D1_KEY = 'hookbench.sqlConsoleD1';

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 200);
}

/** The consoles' language: SQLite's dialect, shown as "SQLite" in the status bar (package.json). */
export const SQL_LANGUAGE = 'hookbench-sql';

export class SqlConsoles implements vscode.Disposable {
  readonly files: ConsoleFiles;
  readonly modes = new ConsoleModes();
  private readonly panels = new Map<string, ResultsPanel>();
  private readonly history: QueryHistory;

  /** `folder`: where the consoles' text is kept, so a restored tab finds it. */
  constructor(
    private readonly session: ExplorerSession,
    state: vscode.Memento,
    folder: string,
  ) {
    this.history = new QueryHistory(state);
    this.files = new ConsoleFiles(folder);
  }

  async open(target: Opening): Promise<vscode.TextEditor> {
    const uri = isD1(target) ? ConsoleFiles.uri(target) : ConsoleFiles.uri(target, target.agent ?? target.namespace);
    this.files.ensure(uri, consoleHeader(target));
    const document = await vscode.workspace.openTextDocument(uri);
    await speakSql(document);
    const editor = await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Active, preview: false });
    if (target.table !== undefined) {
      const sql = browseSql(target.table);
      await editor.edit((edit) => edit.replace(new vscode.Range(0, 0, document.lineCount, 0), `${sql}\n`));
      await document.save();
    }
    this.updateContext();
    return editor;
  }

  /** The console a command is about: the URI it was given, else the active editor's. */
  private consoleOf(given: unknown): { uri: vscode.Uri; ref: ConsoleRef } {
    const uri = given instanceof vscode.Uri ? given : vscode.window.activeTextEditor?.document.uri;
    const ref = uri && ConsoleFiles.targetOf(uri);
    if (!uri || !ref)
      throw new Error('this is not a Hookbench SQL console: open one from an instance in the Agents view or a D1 database in the Bindings view');
    return { uri, ref };
  }

  /** Runs the console's selection, or its whole text, or `sql` when given; shows and answers the outcome. */
  async run(given?: unknown, sql?: string): Promise<RunOutcome> {
    const { uri, ref } = this.consoleOf(given);
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    const document = editor?.document ?? (await vscode.workspace.openTextDocument(uri));
    const selected = editor && !editor.selection.isEmpty ? document.getText(editor.selection) : undefined;
    const text = (sql ?? selected ?? document.getText()).trim();
    const key = consoleKey(ref);
    const mode = this.modes.mode(key);
    const client = this.session.client;
    const started = performance.now();
    let outcome: RunOutcome;
    if (!client) outcome = { kind: 'error', sql: text, message: `The Hookbench receiver is not running: start it to query ${consoleName(ref)}.` };
    else {
      try {
        if (isD1(ref)) {
          // A D1 console only reads (its mode never leaves read-only): the same path as an instance's reads.
          const result = await client.d1Query(ref.d1, text);
          outcome = {
            kind: 'rows',
            sql: text,
            columns: result.columns,
            rows: result.rows,
            truncated: result.truncated === true,
            ms: performance.now() - started,
          };
        } else if (this.modes.route(key, text) === 'execute') {
          const result = await client.execute(ref.namespace, ref.name, text);
          outcome = {
            kind: 'rows',
            sql: text,
            columns: result.columns,
            rows: result.rows,
            truncated: result.truncated === true,
            rowsWritten: result.rowsWritten,
            ms: performance.now() - started,
          };
        } else {
          const result = await client.queryResult(ref.namespace, ref.name, text);
          outcome = {
            kind: 'rows',
            sql: text,
            columns: result.columns,
            rows: result.rows,
            truncated: result.truncated === true,
            ms: performance.now() - started,
          };
        }
      } catch (error) {
        outcome = { kind: 'error', sql: text, message: explainRefusal((error as Error).message, mode) };
      }
    }
    await this.history.add(key, {
      sql: text,
      at: new Date().toISOString(),
      outcome: outcome.kind === 'rows' ? `${outcome.rows.length} row(s)` : firstLine(outcome.message),
    });
    this.resultsPanel(ref, uri).show(outcome, mode);
    return outcome;
  }

  private resultsPanel(ref: ConsoleRef, uri: vscode.Uri): ResultsPanel {
    const key = consoleKey(ref);
    let panel = this.panels.get(key);
    if (!panel) {
      panel = ResultsPanel.create(ref, uri, () => this.panels.delete(key));
      this.panels.set(key, panel);
    }
    return panel;
  }

  /** A results panel VS Code gives back after a reload: it shows what it showed (true), or closes when its state names no console. */
  revive(webview: vscode.WebviewPanel, raw: unknown): boolean {
    const state = parseResultsPanelState(raw);
    const uri = state && vscode.Uri.parse(state.console);
    const ref = uri && ConsoleFiles.targetOf(uri);
    if (!uri || !ref || this.panels.has(consoleKey(ref))) {
      webview.dispose();
      return false;
    }
    const key = consoleKey(ref);
    this.panels.set(key, new ResultsPanel(webview, ref, uri, () => this.panels.delete(key), state.outcome));
    return true;
  }

  async allowWrites(given?: unknown, confirmed?: unknown): Promise<string> {
    const { ref } = this.consoleOf(given);
    if (isD1(ref)) throw new Error(`the console of ${consoleLabel(ref)} is read-only: the worker writes to its database through its binding`);
    const answer =
      confirmed === true
        ? 'Allow Writes'
        : await vscode.window.showWarningMessage(
            `Switch the console of ${ref.name} to read-write?`,
            {
              modal: true,
              detail:
                'Statements that write (INSERT, UPDATE, DELETE, CREATE…) will run on the live instance, through its journal: they are durable at once and the running agent sees them. Plain reads still run on a read-only copy.',
            },
            'Allow Writes',
          );
    const mode = this.modes.allowWrites(consoleKey(ref), answer === 'Allow Writes');
    this.afterModeChange(ref);
    return mode;
  }

  readOnly(given?: unknown): string {
    const { ref } = this.consoleOf(given);
    this.modes.readOnly(consoleKey(ref));
    this.afterModeChange(ref);
    return 'readOnly';
  }

  private afterModeChange(ref: ConsoleRef): void {
    this.updateContext();
    const panel = this.panels.get(consoleKey(ref));
    if (panel) panel.show(panel.outcome, this.modes.mode(consoleKey(ref)));
  }

  /** Picks a statement from the console's history (or takes `index`), puts it in the console and runs it. */
  async rerun(given?: unknown, index?: unknown): Promise<RunOutcome | undefined> {
    const { uri, ref } = this.consoleOf(given);
    const entries = this.history.list(consoleKey(ref));
    if (entries.length === 0) {
      void vscode.window.showInformationMessage(`No statement has run in the console of ${consoleName(ref)} yet.`);
      return undefined;
    }
    const picked =
      typeof index === 'number'
        ? entries[index]
        : (
            await vscode.window.showQuickPick(
              entries.map((entry) => ({
                label: firstLine(entry.sql),
                detail: entry.sql.includes('\n') ? entry.sql.replace(/\s+/g, ' ') : undefined,
                description: `${entry.outcome} · ${entry.at.replace('T', ' ').slice(0, 19)}`,
                entry,
              })),
              { title: `History: ${consoleName(ref)}`, matchOnDetail: true },
            )
          )?.entry;
    if (!picked) return undefined;
    const document = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(document, { preview: false });
    await editor.edit((edit) => edit.replace(new vscode.Range(0, 0, document.lineCount, 0), `${picked.sql}\n`));
    await document.save();
    return this.run(uri, picked.sql);
  }

  /** Saves the last result as CSV or JSON where the user chooses (or at `target`). */
  async export(format: 'csv' | 'json', given?: unknown, target?: unknown): Promise<vscode.Uri | undefined> {
    const { ref } = this.consoleOf(given);
    const outcome = this.panels.get(consoleKey(ref))?.outcome;
    if (outcome?.kind !== 'rows' || outcome.columns.length === 0)
      throw new Error(`run a query in the console of ${consoleName(ref)} first: there is no result to export`);
    if (outcome.total !== undefined)
      throw new Error(`run the statement again to export all its ${outcome.total} rows: results brought back after a reload keep only the rows they show`);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const suggested = `${consoleName(ref).replace(/[^\w.-]+/g, '-')}.${format}`;
    const uri =
      target instanceof vscode.Uri
        ? target
        : await vscode.window.showSaveDialog({
            title: `Export ${format.toUpperCase()}`,
            defaultUri: folder ? vscode.Uri.joinPath(folder, suggested) : undefined,
            filters: format === 'csv' ? { CSV: ['csv'] } : { JSON: ['json'] },
          });
    if (!uri) return undefined;
    const text = format === 'csv' ? toCsv(outcome) : toJson(outcome);
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    void vscode.window.showInformationMessage(`Exported ${outcome.rows.length} row(s) to ${vscode.workspace.asRelativePath(uri)}.`);
    return uri;
  }

  /** `hookbench.sqlConsoleWritable`: the active console is read-write (the editor title shows an open lock). */
  updateContext(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const ref = uri && ConsoleFiles.targetOf(uri);
    void vscode.commands.executeCommand('setContext', WRITABLE_KEY, ref ? this.modes.mode(consoleKey(ref)) === 'readWrite' : false);
    void vscode.commands.executeCommand('setContext', D1_KEY, ref ? isD1(ref) : false);
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.dispose();
  }
}

/** A console's document in the consoles' language, the one it opened in and the one VS Code restores. */
async function speakSql(document: vscode.TextDocument): Promise<void> {
  if (document.uri.scheme === SQL_SCHEME && document.languageId !== SQL_LANGUAGE) await vscode.languages.setTextDocumentLanguage(document, SQL_LANGUAGE);
}

/** `folder`: where the consoles' text is kept (the workspace's private storage). */
export function registerSqlConsole(store: DisposableStore, logger: Logger, session: ExplorerSession, state: vscode.Memento, folder: string): SqlConsoles {
  const consoles = store.add(new SqlConsoles(session, state, folder));
  store.add(vscode.workspace.registerFileSystemProvider(SQL_SCHEME, consoles.files, { isCaseSensitive: true }));
  // A restored console tab opens its document as a `.sql` file: it is given the consoles' language again.
  store.add(vscode.workspace.onDidOpenTextDocument((document) => void speakSql(document)));
  for (const document of vscode.workspace.textDocuments) void speakSql(document);
  // Consoles save themselves to memory as they change: never a "save changes?" prompt.
  const timers = new Map<string, NodeJS.Timeout>();
  store.add(
    vscode.workspace.onDidChangeTextDocument(({ document }) => {
      if (document.uri.scheme !== SQL_SCHEME || !document.isDirty) return;
      clearTimeout(timers.get(document.uri.path));
      timers.set(
        document.uri.path,
        setTimeout(() => void document.save(), 150),
      );
    }),
  );
  store.add({ dispose: () => timers.forEach((t) => clearTimeout(t)) });
  store.add(vscode.window.onDidChangeActiveTextEditor(() => consoles.updateContext()));
  registerCommand(store, logger, 'hookbench.sql.open', async (node: unknown) => {
    const target = targetOf(node);
    if (!target) throw new Error('open a SQL console from an instance (or a table) in the Agents view, or a D1 database in the Bindings view');
    const editor = await consoles.open(target);
    if (target.table !== undefined) await consoles.run(editor.document.uri);
    return editor.document.uri;
  });
  registerCommand(store, logger, 'hookbench.sql.run', (uri: unknown, sql: unknown) => consoles.run(uri, typeof sql === 'string' ? sql : undefined));
  registerCommand(store, logger, 'hookbench.sql.allowWrites', (uri: unknown, confirmed: unknown) => consoles.allowWrites(uri, confirmed));
  registerCommand(store, logger, 'hookbench.sql.readOnly', (uri: unknown) => consoles.readOnly(uri));
  registerCommand(store, logger, 'hookbench.sql.history', (uri: unknown, index: unknown) => consoles.rerun(uri, index));
  registerCommand(store, logger, 'hookbench.sql.exportCsv', (uri: unknown, target: unknown) => consoles.export('csv', uri, target));
  registerCommand(store, logger, 'hookbench.sql.exportJson', (uri: unknown, target: unknown) => consoles.export('json', uri, target));
  return consoles;
}
