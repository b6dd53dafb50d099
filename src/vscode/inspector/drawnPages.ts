/**
 * Which pages a webview has drawn: a panel counts the pages it gives its webview, the webview's
 * script says `drawn` once a page ran, and `drawn()` resolves when the newest page has (the
 * screenshot scenes and tests wait on it instead of sleeping).
 */
import * as vscode from 'vscode';

export class DrawnPages implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  private given = 0;
  private drawnCount = 0;

  /** A new page was given to the webview. */
  gave(): void {
    this.given++;
  }

  /** The webview said it drew: a page replaced before its script ran never says so, so the newest page's word covers it. */
  saidDrawn(): void {
    this.drawnCount = this.given;
    this.emitter.fire();
  }

  async drawn(): Promise<void> {
    while (this.drawnCount < this.given) {
      await new Promise<void>((resolve) => {
        const once = this.emitter.event(() => {
          once.dispose();
          resolve();
        });
      });
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
