import * as vscode from 'vscode';
import type { DisposableStore } from '../core/events';
import type { Logger } from '../core/log';

/**
 * Registers a command whose failures become one short toast with a *Show Log* action and a full
 * log line, instead of VS Code's generic "command failed" notification.
 */
export function registerCommand(store: DisposableStore, logger: Logger, id: string, run: (...args: unknown[]) => unknown): void {
  store.add(
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await run(...args);
      } catch (error) {
        reportError(logger, `${id} failed`, error);
        return undefined;
      }
    }),
  );
}

/** Logs an error in full and shows its first line to the user with a way to the log. */
export function reportError(logger: Logger, context: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  logger.error(error instanceof Error ? error : `${context}: ${message}`);
  void vscode.window.showErrorMessage(`Hookbench: ${message}`, 'Show Log').then((choice) => {
    if (choice === 'Show Log') void vscode.commands.executeCommand('hookbench.showLog');
  });
}
