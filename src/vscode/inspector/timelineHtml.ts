/**
 * The state timeline's page: the instance's stored events down the side, and for the chosen one
 * the state before and after it as a diff (added, removed, changed leaves), with Prev/Next and
 * buttons to open either state as a JSON document. When the instance's database has no state
 * history, the page says what the timeline needs. Pure: unit-tested.
 */
import { setStateScript, type TimelinePanelState } from '../../core/contract/editors';
import { STATE_HISTORY_DDL, STATE_HISTORY_INSERT, STATE_HISTORY_TABLE } from '../../core/contract/timeline';
import { pathText, type StateChange } from '../../core/inspector/stateDiff';
import type { TimelineStep } from '../../core/inspector/timeline';
import type { TimelineMessage } from '../../core/contract/panelMessages';
import { commandAttributes, escapeHtml, keyBindings, page } from './webviewHtml';

/** The attributes of an element whose click posts `message`. */
const onClick = (message: TimelineMessage): string => commandAttributes(message);
const PREV: TimelineMessage = { type: 'command', command: 'prev' };
const NEXT: TimelineMessage = { type: 'command', command: 'next' };

export type TimelineView =
  | { readonly kind: 'steps'; readonly steps: readonly TimelineStep[]; readonly index: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'error'; readonly message: string };

function json(value: unknown): string {
  return value === undefined ? '' : escapeHtml(JSON.stringify(value));
}

/** Column headings of a changes table: the two sides of the diff. */
export interface DiffSides {
  readonly before: string;
  readonly after: string;
}

function changeRow(change: StateChange): string {
  const before = change.kind === 'added' ? '<span class="muted">—</span>' : `<code>${json(change.before)}</code>`;
  const after = change.kind === 'removed' ? '<span class="muted">—</span>' : `<code>${json(change.after)}</code>`;
  return `<tr class="${change.kind}"><td><code>${escapeHtml(pathText(change.path))}</code></td><td>${change.kind}</td><td>${before}</td><td>${after}</td></tr>`;
}

function missing(): string {
  return `<h2>No state history in this instance</h2>
<p>The timeline shows what each stored event changed in the agent's state. It reads the table <code>${STATE_HISTORY_TABLE}</code>,
which the built-in worker writes with every event it stores. This instance's database has no such table: it runs a worker of your own, or
was created before the table existed (its older events have no history).</p>
<p>To get a timeline from your own agent, create the table in <code>onStart</code> and, in the same request that stores an event and calls
<code>setState</code>, insert one row with the state before and after it (JSON):</p>
<pre><code>${escapeHtml(STATE_HISTORY_DDL)};

${escapeHtml(STATE_HISTORY_INSERT)};</code></pre>
<p class="muted">docs/inspector.md has the full recipe.</p>`;
}

function steps({ steps, index }: Extract<TimelineView, { kind: 'steps' }>): string {
  if (steps.length === 0) return '<p class="muted">No event stored yet: send a webhook to this instance.</p>';
  const current = steps[index]!;
  const list = steps
    .map(
      (s, i) =>
        `<li class="${i === index ? 'current' : ''}" ${onClick({ type: 'command', command: 'select', arg: `${i}` })}><span>${escapeHtml(s.eventType)}</span> <span class="muted">${escapeHtml(s.title ?? '')}</span><br><span class="muted">${escapeHtml(s.at)}</span></li>`,
    )
    .reverse()
    .join('');
  const changes =
    current.changes.length === 0
      ? '<p class="muted" id="diff">This event left the state as it was.</p>'
      : changesTable(current.changes, { before: 'Before', after: 'After' }, 'diff');
  return `<div class="layout"><ol class="steps">${list}</ol><main>
<div class="toolbar"><button ${onClick(PREV)}${index === 0 ? ' disabled' : ''}>◀ Prev</button><button ${onClick(NEXT)}${index === steps.length - 1 ? ' disabled' : ''}>Next ▶</button>
<span id="position">event ${index + 1} of ${steps.length}</span>
<button ${onClick({ type: 'command', command: 'openBefore' })}>Open Before as JSON</button><button ${onClick({ type: 'command', command: 'openAfter' })}>Open After as JSON</button></div>
<h2 id="event">${escapeHtml(current.eventType)} <span class="muted">${escapeHtml(current.title ?? '')}</span></h2>
<p class="muted">${escapeHtml(current.eventId)} · ${escapeHtml(current.at)}</p>
${changes}</main></div>`;
}

/** A state diff as a table, one leaf a row, the sides coloured as VS Code's diff editor colours them. */
export function changesTable(changes: readonly StateChange[], sides: DiffSides, id: string): string {
  return `<table id="${escapeHtml(id)}" class="diff"><thead><tr><th>Path</th><th>Change</th><th>${escapeHtml(sides.before)}</th><th>${escapeHtml(sides.after)}</th></tr></thead><tbody>${changes.map(changeRow).join('')}</tbody></table>`;
}

/** The styles of {@link changesTable}. */
export const DIFF_STYLE = `table.diff tr.added td:nth-child(4) { background: var(--vscode-diffEditor-insertedTextBackground); } table.diff tr.removed td:nth-child(3) { background: var(--vscode-diffEditor-removedTextBackground); }
table.diff tr.changed td:nth-child(3) { background: var(--vscode-diffEditor-removedTextBackground); } table.diff tr.changed td:nth-child(4) { background: var(--vscode-diffEditor-insertedTextBackground); }`;

/** `state`: what VS Code keeps of the panel, to give it back after a reload at the same step. */
export function timelineHtml(nonce: string, instance: string, view: TimelineView, state: TimelinePanelState): string {
  const body = view.kind === 'missing' ? missing() : view.kind === 'error' ? `<div class="error" id="error">${escapeHtml(view.message)}</div>` : steps(view);
  return page({
    nonce,
    title: `Timeline: ${instance}`,
    style: `.layout { display: flex; gap: 16px; } .steps { list-style: none; padding: 0; margin: 8px 0; width: 240px; flex: none; max-height: 90vh; overflow: auto; }
.steps li { padding: 4px 6px; cursor: pointer; border-left: 3px solid transparent; } .steps li:hover { background: var(--vscode-list-hoverBackground); }
.steps li.current { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); border-left-color: var(--vscode-focusBorder); }
main { flex: 1; min-width: 0; } h2 { font-size: 1.2em; margin: 8px 0 2px; }
${DIFF_STYLE}
table.diff { width: 100%; table-layout: fixed; } table.diff th:nth-child(2), table.diff td:nth-child(2) { width: 5.5em; }
table.diff th, table.diff td { white-space: normal; overflow-wrap: anywhere; max-width: none; }
@media (max-width: 720px) { .layout { flex-direction: column; gap: 0; } .steps { width: auto; max-height: 30vh; } }
pre { white-space: pre-wrap; background: var(--vscode-textCodeBlock-background); padding: 8px; }`,
    body,
    script: `${setStateScript(state)}\n${keyBindings({ ArrowLeft: PREV, ArrowUp: PREV, ArrowRight: NEXT, ArrowDown: NEXT })}`,
  });
}
