/**
 * A chaos run's results page (docs/chaos.md, "In VS Code"): what ran, one row per perturbation
 * with its verdict, and for the chosen failure its shrunk case — what the perturbation did, the
 * sends in order, the differences, the state timeline against the clean run stepped with
 * Prev/Next (drawn as the state timeline draws a diff), and Replay this sequence. Pure: unit-tested.
 */
import type { ChaosFailure, ChaosReport, ChaosSend, ChaosVerdict } from '../../core/contract/chaos';
import { diffStates } from '../../core/inspector/stateDiff';
import { changesTable, DIFF_STYLE } from '../inspector/timelineHtml';
import type { ChaosMessage } from '../../core/contract/panelMessages';
import { commandAttributes, escapeHtml, keyBindings, page } from '../inspector/webviewHtml';

/** The attributes of an element whose click posts `message`. */
const onClick = (message: ChaosMessage): string => commandAttributes(message);

export interface ChaosView {
  readonly report: ChaosReport;
  /** The failure shown: its perturbation. */
  readonly selected?: string;
  /** The timeline step shown, 0-based. */
  readonly step: number;
  /** How the last Replay this sequence went. */
  readonly replayed?: { readonly perturbation: string; readonly passed: number; readonly failed: number };
}

/** The panel's title and its page's: the fixture folder's name and the seed. */
export function chaosTitle(report: ChaosReport): string {
  const name = report.suite.split(/[\\/]/).filter(Boolean).at(-1) ?? report.suite;
  return `Chaos: ${name} (seed ${report.seed})`;
}

/** The failures of a report, in the order the verdicts came. */
export function failuresOf(report: ChaosReport): ChaosFailure[] {
  return report.verdicts.flatMap((v) => (v.failure ? [v.failure] : []));
}

function header(report: ChaosReport): string {
  const statuses =
    Object.entries(report.baseline.statuses)
      .map(([status, count]) => `${status} ×${count}`)
      .join(', ') || 'nothing sent';
  const failed = failuresOf(report).length;
  return `<h2 id="summary">${failed === 0 ? 'Nothing diverged' : `${failed} perturbation${failed === 1 ? '' : 's'} changed the outcome`}</h2>
<p class="muted">${report.fixtures} fixtures in ${escapeHtml(report.suite)} · worker ${escapeHtml(report.worker)} · seed ${report.seed} · ${count(report.runs, 'run')} of each perturbation · ${(report.ms / 1000).toFixed(1)} s</p>
<p class="muted">baseline: ${escapeHtml(statuses)} over ${report.baseline.entities.length} entities; ${report.noise.length === 0 ? 'nothing differed between its two runs' : `${report.noise.length} noisy paths masked (${escapeHtml(report.noise.map((n) => `${n.entity} ${n.part} ${n.path}`).join(', '))})`}</p>`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function verdictRow(verdict: ChaosVerdict, selected: string | undefined): string {
  const failure = verdict.failure;
  const what = failure
    ? `run ${failure.run}: shrunk to ${count(failure.fixtures.length, 'fixture')} and ${count(failure.sends.length, 'send')} (from ${failure.shrunkFrom.fixtures} and ${failure.shrunkFrom.sends})`
    : (verdict.note ?? '');
  const attrs = failure ? ` ${onClick({ type: 'command', command: 'select', arg: verdict.perturbation })}` : '';
  const classes = [verdict.verdict === 'FAIL' ? 'fail' : verdict.verdict === 'ok' ? 'ok' : 'na', verdict.perturbation === selected ? 'current' : '']
    .join(' ')
    .trim();
  return `<tr class="${classes}"${attrs}><td class="verdict">${escapeHtml(verdict.verdict)}</td><td>${escapeHtml(verdict.perturbation)}</td><td class="num">${verdict.runs}</td><td class="num">${verdict.sends}</td><td>${escapeHtml(what)}</td></tr>`;
}

function sendRow(send: ChaosSend): string {
  const kind = send.kind === 'retry' ? `retry, attempt ${send.attempt ?? 2}` : send.kind;
  return `<tr><td class="num">${send.step}</td><td>${escapeHtml(send.fixture)}</td><td>${escapeHtml(kind)}</td><td class="num">${send.status ?? 'no answer'}</td><td><code>${escapeHtml(send.deliveryId ?? '')}</code></td></tr>`;
}

function timeline(failure: ChaosFailure, index: number): string {
  const steps = failure.timeline;
  const current = steps[index];
  if (!current) return '<p class="muted">No timeline: the case sent nothing.</p>';
  const entities = [...new Set([...Object.keys(current.expected), ...Object.keys(current.actual)])].sort();
  const diffs = entities.map((entity) => {
    const changes = diffStates(current.expected[entity], current.actual[entity]);
    const body =
      changes.length === 0 ? '<p class="muted">as the clean run</p>' : changesTable(changes, { before: 'Clean run', after: 'This run' }, `diff-${entity}`);
    return `<h4>${escapeHtml(entity)}</h4>${body}`;
  });
  const first = failure.firstDivergence?.step === current.step ? ' <span class="fail">(the first step that differs)</span>' : '';
  return `<div class="toolbar"><button ${onClick({ type: 'command', command: 'prev' })}${index === 0 ? ' disabled' : ''}>◀ Prev</button><button ${onClick({ type: 'command', command: 'next' })}${index === steps.length - 1 ? ' disabled' : ''}>Next ▶</button>
<span id="position">step ${current.step} of ${steps.length}: ${escapeHtml(current.sent)}${first}</span></div>
${current.differences.length === 0 ? '<p class="muted">The state is what a clean run of the deliveries sent so far leaves.</p>' : `<ul class="differences">${current.differences.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`}
${diffs.join('\n')}`;
}

function replayed(outcome: ChaosView['replayed']): string {
  if (!outcome) return '';
  const verdict =
    outcome.failed === 0
      ? 'every fixture passed: the handler no longer fails this case'
      : 'the case still fails (the Hookbench Fixtures output has each fixture)';
  return ` <span id="replayed" class="${outcome.failed === 0 ? 'ok' : 'fail'}">replayed: ${outcome.passed} passed, ${outcome.failed} failed — ${verdict}</span>`;
}

function failureSection(failure: ChaosFailure, view: ChaosView): string {
  const replay = failure.replay
    ? `<button ${onClick({ type: 'command', command: 'replay' })} id="replay">Replay this sequence</button> <span class="muted">against the receiver, from <code>${escapeHtml(failure.replay)}</code></span>${replayed(view.replayed?.perturbation === failure.perturbation ? view.replayed : undefined)}`
    : '<span class="muted">No replay set was written for this case.</span>';
  return `<section id="failure"><h3>${escapeHtml(failure.perturbation)}: FAIL <span class="muted">(seed ${failure.seed}, run ${failure.run}, shrunk in ${failure.shrinkRuns} runs)</span></h3>
<div class="toolbar">${replay}</div>
<h4>What the perturbation did</h4><ul id="perturbed">${failure.perturbed.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
<h4>Sent, in this order <span class="muted">(each re-signed when sent; one step's sends went at once)</span></h4>
<table id="sends"><thead><tr><th>Step</th><th>Fixture</th><th>Kind</th><th>Answer</th><th>Delivery id</th></tr></thead><tbody>${failure.sends.map(sendRow).join('')}</tbody></table>
<h4>How the end differs from a clean run${failure.firstDivergence ? ` <span class="muted">(first after step ${failure.firstDivergence.step}: ${escapeHtml(failure.firstDivergence.sent)})</span>` : ''}</h4>
<ul id="differences">${failure.differences.map((d) => `<li>${escapeHtml(d.line)}</li>`).join('')}</ul>
<h4>State after each step, against a clean run of the deliveries sent so far</h4>
<div id="timeline">${timeline(failure, view.step)}</div></section>`;
}

export function chaosHtml(nonce: string, view: ChaosView): string {
  const { report } = view;
  const failure = failuresOf(report).find((f) => f.perturbation === view.selected);
  const body = `${header(report)}
<table id="verdicts"><thead><tr><th></th><th>Perturbation</th><th>Runs</th><th>Sends</th><th></th></tr></thead><tbody>${report.verdicts.map((v) => verdictRow(v, view.selected)).join('')}</tbody></table>
${failure ? failureSection(failure, view) : ''}`;
  return page({
    nonce,
    title: chaosTitle(report),
    style: `${DIFF_STYLE}
h2 { font-size: 1.2em; margin: 8px 0 2px; } h3 { margin: 16px 0 4px; } h4 { margin: 12px 0 4px; }
#verdicts td { white-space: normal; } #verdicts tr[data-command] { cursor: pointer; } #verdicts tr.current { outline: 1px solid var(--vscode-focusBorder); }
.fail, tr.fail td.verdict { color: var(--vscode-errorForeground); font-weight: bold; } tr.ok td.verdict, .ok { color: var(--vscode-testing-iconPassed, inherit); }
#replay { background: var(--vscode-button-background); color: var(--vscode-button-foreground); }`,
    body,
    script: keyBindings({ ArrowLeft: { type: 'command', command: 'prev' }, ArrowRight: { type: 'command', command: 'next' } } satisfies Record<
      string,
      ChaosMessage
    >),
  });
}
