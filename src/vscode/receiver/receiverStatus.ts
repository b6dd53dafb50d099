/**
 * The receiver's state where the user sees it: the status bar item (text, tooltip, an error
 * background when it failed) and the `hookbench.receiverRunning` / `hookbench.receiverState`
 * context keys the commands' `enablement` reads.
 */
import * as vscode from 'vscode';
import type { ServeState } from './serveProcess';

/** What the status bar shows for a state; `markdown` tooltips are rendered as such. */
export interface StatusLook {
  readonly text: string;
  readonly tooltip: string;
  readonly markdown: boolean;
  readonly error: boolean;
}

/** The status bar's look for `state`; `trusted`: whether the workspace is (restricted mode is said). */
export function statusLook(state: ServeState, trusted: boolean): StatusLook {
  switch (state.kind) {
    case 'running': {
      const port = new URL(state.url).port;
      if (state.attached) {
        return {
          text: `$(plug) Hookbench :${port} · attached to pid ${state.attached.pid}`,
          tooltip: `Attached to the hookbench serve of pid ${state.attached.pid} ${state.attached.origin}, on \`${state.url}\`: its instances, deliveries and live feed.\n\nIt runs with its own flags and secrets. Stop Receiver detaches and leaves it running.`,
          markdown: true,
          error: false,
        };
      }
      const restricted = trusted ? '' : "\n\nRestricted mode: this folder is not trusted, so the built-in worker runs, never the folder's own code.";
      return {
        text: `$(radio-tower) Hookbench :${port}`,
        tooltip: `Hookbench receiver on \`${state.url}\`\n\nPOST webhooks to \`${state.url}/webhooks/<provider>/<entity>\`${restricted}`,
        markdown: true,
        error: false,
      };
    }
    case 'starting':
      return { text: '$(sync~spin) Hookbench', tooltip: 'Hookbench receiver is starting', markdown: false, error: false };
    case 'stopped':
      return {
        text: '$(circle-slash) Hookbench',
        tooltip: state.note ? `Hookbench: ${state.note}` : 'Hookbench receiver is stopped',
        markdown: false,
        error: false,
      };
    case 'failed':
      return { text: '$(error) Hookbench', tooltip: `Hookbench receiver failed: ${state.message}`, markdown: false, error: true };
  }
}

export class ReceiverStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('hookbench.receiver', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Hookbench Receiver';
    this.item.command = 'hookbench.receiver.showMenu';
  }

  /** Shows `state` in the status bar and the context keys. */
  render(state: ServeState): void {
    void vscode.commands.executeCommand('setContext', 'hookbench.receiverRunning', state.kind === 'running');
    void vscode.commands.executeCommand('setContext', 'hookbench.receiverState', state.kind);
    const look = statusLook(state, vscode.workspace.isTrusted);
    this.item.text = look.text;
    this.item.tooltip = look.markdown ? new vscode.MarkdownString(look.tooltip) : look.tooltip;
    this.item.backgroundColor = look.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  show(): void {
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
