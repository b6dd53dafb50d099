/**
 * One chaos run's results (docs/chaos.md, "In VS Code"): a webview panel per run, drawn by
 * `chaosHtml`, showing the first failure at its first differing step; a failure is chosen from
 * its verdict's row, its timeline stepped with Prev/Next (buttons, arrow keys), and its replay
 * set run against the receiver with Run Fixtures. The outcome of the last replay is shown on the page.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/events';
import type { ChaosFailure, ChaosReport } from '../../core/contract/chaos';
import { parseChaosMessage } from '../../core/contract/panelMessages';
import { step } from '../../core/inspector/timeline';
import { chaosHtml, chaosTitle, failuresOf, type ChaosView } from './chaosHtml';

export const CHAOS_VIEW_TYPE = 'hookbench.chaosResults';

/** Runs a failure's replay set against the receiver; answers the counts, or undefined when the user backed out. */
export type ReplayRunner = (failure: ChaosFailure) => Promise<{ passed: number; failed: number } | undefined>;

/** Where a failure's timeline opens: the step it first differs at. */
function firstStep(failure: ChaosFailure | undefined): number {
  return Math.max(0, (failure?.firstDivergence?.step ?? 1) - 1);
}

export class ChaosPanel implements vscode.Disposable {
  private view: ChaosView;
  /** Disposed last to first: the listeners, the panel, then `onClosed`. */
  private readonly store = new DisposableStore();
  readonly panel: vscode.WebviewPanel;

  constructor(
    report: ChaosReport,
    private readonly replayRunner: ReplayRunner,
    onClosed: () => void,
  ) {
    const first = failuresOf(report)[0];
    this.view = { report, ...(first ? { selected: first.perturbation } : {}), step: firstStep(first) };
    this.store.add({ dispose: onClosed });
    this.panel = this.store.add(
      vscode.window.createWebviewPanel(CHAOS_VIEW_TYPE, chaosTitle(report), vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: [] }),
    );
    this.store.add(this.panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message)));
    this.store.add(this.panel.onDidDispose(() => this.dispose()));
    this.draw(this.view);
  }

  /** The failure shown, if any. */
  private get failure(): ChaosFailure | undefined {
    return failuresOf(this.view.report).find((f) => f.perturbation === this.view.selected);
  }

  private draw(view: ChaosView): void {
    this.view = view;
    this.panel.webview.html = chaosHtml(randomBytes(16).toString('base64'), view);
  }

  /** Shows the failure of `perturbation` at its first differing step. */
  select(perturbation: string): void {
    const failure = failuresOf(this.view.report).find((f) => f.perturbation === perturbation);
    if (failure) this.draw({ report: this.view.report, selected: perturbation, step: firstStep(failure) });
  }

  /** Moves the shown failure's timeline by `delta` steps; answers the index now shown. */
  move(delta: number): number {
    const length = this.failure?.timeline.length ?? 0;
    if (length === 0) return 0;
    const index = step(this.view.step, delta, length);
    if (index !== this.view.step) this.draw({ ...this.view, step: index });
    return index;
  }

  /** Runs the shown failure's replay set against the receiver, and says on the page how it went. */
  async replay(): Promise<{ passed: number; failed: number } | undefined> {
    const failure = this.failure;
    if (!failure?.replay) return undefined;
    const outcome = await this.replayRunner(failure);
    if (outcome && !this.store.isDisposed) this.draw({ ...this.view, replayed: { perturbation: failure.perturbation, ...outcome } });
    return outcome;
  }

  /** Only a message parseChaosMessage accepts is acted on. */
  private receive(raw: unknown): void {
    const message = parseChaosMessage(raw);
    if (!message) return;
    switch (message.command) {
      case 'prev':
        return void this.move(-1);
      case 'next':
        return void this.move(1);
      case 'select':
        return this.select(message.arg);
      case 'replay':
        return void this.replay();
    }
  }

  dispose(): void {
    this.store.dispose();
  }
}
