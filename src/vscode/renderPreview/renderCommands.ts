/**
 * Commands of the render preview: open it, render the active HTML file in it, and keep the
 * Cloudflare API token in SecretStorage.
 */
import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import type { Logger } from '../../core/log';
import type { PreviewForm } from '../../core/browserRendering/previewProtocol';
import { registerCommand } from '../commands';
import type { ServerController } from '../receiver/serverController';
import { isHtmlDocument, PREVIEW_VIEW_TYPE, PreviewPanel } from './previewPanel';
import { CLOUDFLARE_TOKEN_KEY } from './renderTarget';

export function registerRenderCommands(store: DisposableStore, logger: Logger, context: vscode.ExtensionContext, server: ServerController): void {
  registerCommand(store, logger, 'hookbench.render.openPreview', async (form?: unknown) => {
    const panel = PreviewPanel.show(context, server, logger);
    // A form passed in (other extensions, scripts) renders at once, and what it rendered is the answer.
    if (form && typeof form === 'object') return panel.render(form as PreviewForm);
    return undefined;
  });
  // From the editor title the file's URI comes in; from the palette, the active editor's document.
  registerCommand(store, logger, 'hookbench.render.activeFile', async (resource?: unknown) => {
    const document = resource instanceof vscode.Uri ? await vscode.workspace.openTextDocument(resource) : vscode.window.activeTextEditor?.document;
    if (!document || !isHtmlDocument(document)) throw new Error('Open an HTML file in the editor to render it.');
    return PreviewPanel.show(context, server, logger, true).renderDocument(document);
  });
  store.add(
    vscode.window.registerWebviewPanelSerializer(PREVIEW_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel) => {
        PreviewPanel.adopt(panel, context, server, logger);
      },
    }),
  );
  store.add({ dispose: () => PreviewPanel.open?.dispose() });

  registerCommand(store, logger, 'hookbench.render.setToken', async (value?: unknown) => {
    const token =
      typeof value === 'string'
        ? value
        : await vscode.window.showInputBox({
            title: 'Cloudflare API token for Browser Rendering',
            prompt: 'A token with the "Browser Rendering - Edit" permission. Kept in VS Code secret storage.',
            password: true,
            ignoreFocusOut: true,
          });
    if (!token) return;
    await context.secrets.store(CLOUDFLARE_TOKEN_KEY, token.trim());
    void vscode.window.showInformationMessage('Saved the Cloudflare API token in secret storage.');
  });
  registerCommand(store, logger, 'hookbench.render.clearToken', async () => {
    await context.secrets.delete(CLOUDFLARE_TOKEN_KEY);
    void vscode.window.showInformationMessage('Removed the Cloudflare API token.');
  });
}
