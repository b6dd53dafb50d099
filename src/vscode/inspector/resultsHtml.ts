/**
 * The SQL console's results page, built from the outcome of one run: a bounded table (at most
 * `maxShown` rows drawn, "N more rows not shown" below), SQLite's message for an error, the
 * console's mode, and the buttons to export or re-run from history. Pure: unit-tested.
 */
import type { QueryValue } from '../../core/contract/admin';
import { resultsPanelState, setStateScript, type RunOutcome } from '../../core/contract/editors';
import type { ConsoleMode } from '../../core/inspector/consoleMode';
import type { ResultsMessage } from '../../core/contract/panelMessages';
import { commandAttributes, escapeHtml, page } from './webviewHtml';

/** The attributes of a button that runs the console's command `command`. */
const runs = (command: ResultsMessage['command']): string => commandAttributes({ type: 'command', command } satisfies ResultsMessage);

export type { RunOutcome } from '../../core/contract/editors';

export interface ResultsView {
  readonly nonce: string;
  /** "acme-widgets (WEBHOOK_AGENT)" */
  readonly instance: string;
  /** The console's URI: the panel's state, so that VS Code gives the panel back with it after a reload. */
  readonly console: string;
  readonly mode: ConsoleMode;
  readonly outcome: RunOutcome | undefined;
  readonly maxShown: number;
}

function cell(value: QueryValue | undefined): string {
  if (value === null || value === undefined) return '<td class="null">NULL</td>';
  if (typeof value === 'number') return `<td class="num">${value}</td>`;
  if (typeof value === 'object')
    return `<td class="null" title="base64">blob ${escapeHtml(value.base64.slice(0, 40))}${value.base64.length > 40 ? '…' : ''}</td>`;
  return `<td title="${escapeHtml(value.slice(0, 2000))}">${escapeHtml(value.length > 500 ? `${value.slice(0, 500)}…` : value)}</td>`;
}

function summary(outcome: Extract<RunOutcome, { kind: 'rows' }>, shown: number): string {
  const total = outcome.total ?? outcome.rows.length;
  const parts = [`${total}${outcome.truncated ? '+' : ''} row${total === 1 ? '' : 's'}`];
  if (outcome.rowsWritten !== undefined) parts.push(`${outcome.rowsWritten} written`);
  parts.push(`${outcome.ms.toFixed(0)} ms`);
  const hidden = total - shown;
  const more =
    hidden > 0 || outcome.truncated
      ? `<p class="more" id="more">${hidden > 0 ? hidden : 'more'}${outcome.truncated ? '+' : ''} more rows not shown${outcome.truncated ? ' (the admin API stops at its row cap)' : ''}: add a LIMIT or a WHERE, or export.</p>`
      : '';
  return `<p class="muted" id="summary">${escapeHtml(parts.join(' · '))}</p>${more}`;
}

function table(outcome: Extract<RunOutcome, { kind: 'rows' }>, maxShown: number): string {
  const shown = Math.min(outcome.rows.length, maxShown);
  if (outcome.columns.length === 0) return summary(outcome, shown);
  const head = `<tr>${outcome.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr>`;
  const body = outcome.rows
    .slice(0, shown)
    .map((row) => `<tr>${outcome.columns.map((_, i) => cell(row[i])).join('')}</tr>`)
    .join('');
  return `<table id="results"><thead>${head}</thead><tbody>${body}</tbody></table>${summary(outcome, shown)}`;
}

export function resultsHtml({ nonce, instance, console, mode, outcome, maxShown }: ResultsView): string {
  const exportable = outcome?.kind === 'rows' && outcome.columns.length > 0;
  const modeText = mode === 'readOnly' ? 'read-only' : 'read-write: statements that write run on the live instance';
  const toolbar = `<div class="toolbar">
<button ${runs('run')}>Run ▶</button>
<button ${runs('history')}>History…</button>
<button ${runs('exportCsv')}${exportable ? '' : ' disabled'}>Export CSV</button>
<button ${runs('exportJson')}${exportable ? '' : ' disabled'}>Export JSON</button>
<span class="mode ${mode}" id="mode">${escapeHtml(modeText)}</span></div>`;
  let main: string;
  if (!outcome) main = '<p class="muted">Run a statement with Ctrl+Enter (⌘+Enter) in the console.</p>';
  else if (outcome.kind === 'error')
    main = `<pre class="sql"><code>${escapeHtml(outcome.sql)}</code></pre><div class="error" id="error">${escapeHtml(outcome.message)}</div>`;
  else main = `<pre class="sql"><code>${escapeHtml(outcome.sql)}</code></pre>${table(outcome, maxShown)}`;
  return page({
    nonce,
    title: `Results: ${instance}`,
    style:
      '.mode { margin-left: auto; } .mode.readWrite { color: var(--vscode-editorWarning-foreground); font-weight: bold; } pre.sql { opacity: .8; white-space: pre-wrap; margin: 4px 0 8px; }',
    body: `${toolbar}${main}`,
    script: setStateScript(resultsPanelState(console, outcome, maxShown)),
  });
}
