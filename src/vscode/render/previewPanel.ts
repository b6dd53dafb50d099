/**
 * The render preview: one webview panel (restored after a reload) whose form the webview owns and
 * whose renders the extension runs — through the local emulator, with the font report beside the
 * image or PDF, or through Cloudflare. Tokens and font bytes never reach the webview.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { RenderClient, renderCurl, type RenderAnswer } from '../../core/render/client';
import { FONT_CATALOG, type CatalogEntry } from '../../core/render/fontCatalog';
import { formSpec, previewBody } from '../../core/render/previewBody';
import type { PreviewForm, ToExtension, ToWebview } from '../../core/render/previewProtocol';
import type { Logger } from '../../core/log';
import type { ServerController } from '../server/serverController';
import { resolveTarget, type ResolvedTarget } from './renderTarget';

export const PREVIEW_VIEW_TYPE = 'hookbench.renderPreview';

export class PreviewPanel implements vscode.Disposable {
  private static current: PreviewPanel | undefined;
  private last: { bytes: Buffer; contentType: string } | undefined;
  private lastForm: PreviewForm | undefined;
  /** Messages held until the webview is ready; undefined once it is. */
  private waiting: ToWebview[] | undefined = [];
  private readonly displayedEmitter = new vscode.EventEmitter<Extract<ToExtension, { type: 'displayed' }>>();
  /** Fires when the webview has drawn a capture (tests wait for it). */
  readonly onDidDisplay = this.displayedEmitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  /** Every message the panel sent, newest last (integration tests read it). */
  readonly sent: ToWebview[] = [];

  static show(context: vscode.ExtensionContext, server: ServerController, logger: Logger): PreviewPanel {
    if (PreviewPanel.current) {
      PreviewPanel.current.panel.reveal();
      return PreviewPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(PREVIEW_VIEW_TYPE, 'Render Preview', vscode.ViewColumn.Active, PreviewPanel.options(context));
    return PreviewPanel.adopt(panel, context, server, logger);
  }

  static adopt(panel: vscode.WebviewPanel, context: vscode.ExtensionContext, server: ServerController, logger: Logger): PreviewPanel {
    panel.webview.options = PreviewPanel.options(context);
    PreviewPanel.current = new PreviewPanel(panel, context, server, logger);
    return PreviewPanel.current;
  }

  static get open(): PreviewPanel | undefined {
    return PreviewPanel.current;
  }

  private static options(context: vscode.ExtensionContext): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist')] };
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly context: vscode.ExtensionContext,
    private readonly server: ServerController,
    private readonly logger: Logger,
  ) {
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message: ToExtension) => void this.receive(message)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Runs a render as if the user pressed Render with this form (tests, and the command's argument). */
  render(form: PreviewForm): Promise<void> {
    this.post({ type: 'setForm', form });
    return this.receive({ type: 'render', form });
  }

  private post(message: ToWebview): void {
    this.sent.push(message);
    if (this.sent.length > 50) this.sent.shift();
    // A webview drops messages that arrive before its script runs: hold them until it says ready.
    if (this.waiting) this.waiting.push(message);
    else void this.panel.webview.postMessage(message);
  }

  /** The webview is ready: `init` goes first, then what was held for it. */
  private opened(init: ToWebview): void {
    const held = this.waiting ?? [];
    this.waiting = undefined;
    this.post(init);
    for (const message of held) void this.panel.webview.postMessage(message);
  }

  private async receive(message: ToExtension): Promise<void> {
    try {
      switch (message.type) {
        case 'ready': {
          const target = await resolveTarget(this.server, this.context.secrets).catch(() => undefined);
          return this.opened({
            type: 'init',
            ...(this.lastForm ? { form: this.lastForm } : {}),
            catalog: await this.catalog(target),
            target: target?.label ?? 'no target',
          });
        }
        case 'displayed':
          return this.displayedEmitter.fire(message);
        case 'render':
          return await this.runRender(message.form);
        case 'pickFontFile':
          return await this.pickFontFile();
        case 'copyCurl':
          return await this.copyCurl(message.form, message.revealToken);
        case 'save':
          return await this.save();
      }
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.logger.warn(`[render] ${text}`);
      this.post({ type: 'error', message: text });
    }
  }

  private async catalog(target: ResolvedTarget | undefined): Promise<CatalogEntry[]> {
    if (target?.local) return new RenderClient(target).fonts<CatalogEntry[]>();
    // Cloudflare has its whole list installed.
    return FONT_CATALOG.map((font) => ({ ...font, installed: true }));
  }

  private async body(form: PreviewForm): Promise<Record<string, unknown>> {
    const source = form.font === 'custom' ? form.customSource : undefined;
    const bytes = source?.kind === 'file' ? await fs.readFile(source.path) : undefined;
    return previewBody(formSpec(form, bytes));
  }

  private async runRender(form: PreviewForm): Promise<void> {
    this.lastForm = form;
    this.post({ type: 'rendering' });
    const target = await resolveTarget(this.server, this.context.secrets);
    const client = new RenderClient(target);
    const body = await this.body(form);
    const [answer, report] = await Promise.all([
      client.render(form.endpoint, body),
      target.local ? client.fontReport<{ elements: []; fontsReady: string }>(body).catch((error: Error) => error) : Promise.resolve(undefined),
    ]);
    if (answer.kind !== 'binary') throw new Error(`${form.endpoint} answered JSON, not an image or PDF`);
    this.last = { bytes: answer.bytes, contentType: answer.contentType };
    this.logger.info(`[render] ${form.endpoint} through ${target.label}: ${answer.bytes.length} bytes, ${browserMs(answer)} browser ms`);
    this.post({
      type: 'rendered',
      contentType: answer.contentType,
      data: answer.bytes.toString('base64'),
      ...(answer.browserMsUsed !== undefined ? { browserMsUsed: answer.browserMsUsed } : {}),
      ...(report instanceof Error ? { reportError: report.message } : report ? { report } : {}),
    });
  }

  private async pickFontFile(): Promise<void> {
    const picked = await vscode.window.showOpenDialog({ title: 'Choose a font file', canSelectMany: false, filters: { Fonts: ['woff2', 'woff', 'ttf', 'otf'] } });
    const file = picked?.[0];
    if (!file) return;
    this.post({ type: 'fontFile', source: { kind: 'file', path: file.fsPath, name: file.path.split('/').pop() ?? 'font' } });
  }

  private async copyCurl(form: PreviewForm, revealToken: boolean): Promise<void> {
    const target = await resolveTarget(this.server, this.context.secrets);
    await vscode.env.clipboard.writeText(renderCurl(target, form.endpoint, await this.body(form), revealToken));
    void vscode.window.showInformationMessage(revealToken ? 'Copied the cURL command, with the token.' : 'Copied the cURL command (the token is $CLOUDFLARE_API_TOKEN).');
  }

  private async save(): Promise<void> {
    if (!this.last) throw new Error('Render something first.');
    const pdf = this.last.contentType.includes('pdf');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const defaultUri = folder ? vscode.Uri.joinPath(folder, pdf ? 'render.pdf' : 'render.png') : undefined;
    const target = await vscode.window.showSaveDialog({ ...(defaultUri ? { defaultUri } : {}), filters: pdf ? { PDF: ['pdf'] } : { Images: ['png', 'jpeg', 'webp'] } });
    if (!target) return;
    await vscode.workspace.fs.writeFile(target, this.last.bytes);
    void vscode.window.showInformationMessage(`Saved ${target.fsPath}`);
  }

  private html(): string {
    const webview = this.panel.webview;
    const nonce = randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'webview.js'));
    const worker = webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'pdf.worker.min.mjs'));
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data: blob:`,
      `script-src 'nonce-${nonce}'`,
      `style-src ${webview.cspSource} 'nonce-${nonce}'`,
      `font-src ${webview.cspSource}`,
      // pdf.js's worker is fetched from the extension and started from a blob URL.
      `connect-src ${webview.cspSource}`,
      'worker-src blob:',
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Render Preview</title>
</head>
<body>
<div id="app" data-pdf-worker="${worker.toString()}" data-nonce="${nonce}"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (PreviewPanel.current === this) PreviewPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.displayedEmitter.dispose();
    this.panel.dispose();
  }
}

function browserMs(answer: RenderAnswer): string {
  return answer.browserMsUsed === undefined ? '?' : String(answer.browserMsUsed);
}
