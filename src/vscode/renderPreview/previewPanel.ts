/**
 * The render preview: one webview panel (restored after a reload) whose form the webview owns and
 * whose renders the extension checks and runs — through the local emulator, with the font report
 * and font warnings beside the image or PDF, or through Cloudflare. Tokens and font bytes never
 * reach the webview. A form taken from an HTML file renders again when that file is saved.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { RenderClient, renderCurl } from '../../core/browserRendering/client';
import { FONT_CATALOG, type CatalogEntry } from '../../core/browserRendering/fontCatalog';
import { checkForm, DEFAULT_PREVIEW_FORM, problemsText } from '../../core/browserRendering/previewForm';
import {
  previewTimingText,
  type FieldProblem,
  type PreviewForm,
  type PreviewOutcome,
  type ToExtension,
  type ToWebview,
} from '../../core/browserRendering/previewProtocol';
import { previewRequest, renderPreview } from '../../core/browserRendering/previewRender';
import type { Logger } from '../../core/log';
import type { ServerController } from '../receiver/serverController';
import { resolveTarget, type ResolvedTarget } from './renderTarget';

export const PREVIEW_VIEW_TYPE = 'hookbench.renderPreview';

/** A form with problems: refused before the emulator is called. */
class FormError extends Error {
  constructor(readonly problems: FieldProblem[]) {
    super(`Fix the form first: ${problemsText(problems)}.`);
  }
}

type Displayed = Extract<ToExtension, { type: 'displayed' }>;

/** An HTML document: by language, or by name while its language is still plain text. */
export function isHtmlDocument(document: vscode.TextDocument): boolean {
  return document.languageId === 'html' || /\.html?$/i.test(document.uri.path);
}

export class PreviewPanel implements vscode.Disposable {
  private static current: PreviewPanel | undefined;
  private last: { bytes: Buffer; contentType: string } | undefined;
  /** The form as the webview last showed it (checked), or as a command set it. */
  private lastForm: PreviewForm | undefined;
  /** Numbers renders: an answer that a newer render overtook is dropped. */
  private renders = 0;
  /** Messages held until the webview is ready; undefined once it is. */
  private waiting: ToWebview[] | undefined = [];
  private readonly disposables: vscode.Disposable[] = [];
  /** The extension's part of the last capture posted, joined to the webview's when it says it is shown. */
  private lastSpan: { extensionMs: number; restMs: number; bytes: number } | undefined;

  /** Opens the panel, or reveals it; `beside` keeps the editor in view and its focus. */
  static show(context: vscode.ExtensionContext, server: ServerController, logger: Logger, beside = false): PreviewPanel {
    if (PreviewPanel.current) {
      PreviewPanel.current.panel.reveal(undefined, beside);
      return PreviewPanel.current;
    }
    const column = beside ? { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true } : vscode.ViewColumn.Active;
    const panel = vscode.window.createWebviewPanel(PREVIEW_VIEW_TYPE, 'Render Preview', column, PreviewPanel.options(context));
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
    private readonly panel: vscode.WebviewPanel,
    private readonly context: vscode.ExtensionContext,
    private readonly server: ServerController,
    private readonly logger: Logger,
  ) {
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message: unknown) => void this.receive(message)),
      panel.onDidDispose(() => this.dispose()),
      vscode.workspace.onDidSaveTextDocument((document) => {
        if (this.lastForm?.source === 'html' && this.lastForm.htmlFile === document.uri.toString() && isHtmlDocument(document))
          void this.renderDocument(document);
      }),
    );
  }

  /**
   * Runs a render as if the user pressed Render with this form (the command's argument); answers
   * what it rendered, or undefined when a newer render overtook it.
   */
  render(form: PreviewForm): Promise<PreviewOutcome | undefined> {
    this.post({ type: 'setForm', form });
    return this.runRender(form);
  }

  /** Renders an HTML document's text with the form's other choices; saving it renders it again. */
  renderDocument(document: vscode.TextDocument): Promise<PreviewOutcome | undefined> {
    const form = this.lastForm ?? DEFAULT_PREVIEW_FORM;
    return this.render({ ...form, source: 'html', html: document.getText(), htmlFile: document.uri.toString() });
  }

  private post(message: ToWebview): void {
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

  private async receive(raw: unknown): Promise<void> {
    const message = (raw ?? {}) as ToExtension;
    try {
      switch (message.type) {
        case 'ready': {
          const target = await resolveTarget(this.server, this.context.secrets).catch(() => undefined);
          return this.opened({
            type: 'init',
            ...(this.lastForm ? { form: this.lastForm } : {}),
            defaults: DEFAULT_PREVIEW_FORM,
            catalog: await this.catalog(target),
            target: target?.label ?? 'no target',
          });
        }
        case 'check': {
          const { form, problems } = checkForm(message.form);
          if (form) this.lastForm = form;
          return this.post({ type: 'checked', ...(typeof message.requestId === 'number' ? { requestId: message.requestId } : {}), problems });
        }
        case 'displayed':
          return this.noteTiming(message);
        case 'render':
          return void (await this.runRender(message.form));
        case 'pickFontFile':
          return await this.pickFontFile();
        case 'copyCurl':
          return await this.copyCurl(message.form, message.revealToken === true);
        case 'save':
          return await this.save();
      }
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.logger.warn(`[render] ${text}`);
      this.post({ type: 'error', message: text });
    }
  }

  /** A form the webview sent, checked again here: a render never starts from one with problems. */
  private checked(raw: unknown): PreviewForm {
    const { form, problems } = checkForm(raw);
    if (form) this.lastForm = form;
    if (!form || problems.length > 0) {
      this.post({ type: 'checked', problems });
      throw new FormError(problems);
    }
    return form;
  }

  private async catalog(target: ResolvedTarget | undefined): Promise<CatalogEntry[]> {
    if (target?.local) return new RenderClient(target).fonts<CatalogEntry[]>();
    // Cloudflare has its whole list installed.
    return FONT_CATALOG.map((font) => ({ ...font, installed: true }));
  }

  private async fontBytes(form: PreviewForm): Promise<Uint8Array | undefined> {
    const source = form.font === 'custom' ? form.customSource : undefined;
    return source?.kind === 'file' ? fs.readFile(source.path) : undefined;
  }

  /**
   * A click's render is shown: its time, split into the extension's part, the webview's and the
   * messages', said in the log (docs/performance.md, "Render preview").
   */
  private noteTiming(message: Displayed): void {
    const span = this.lastSpan;
    const timing = message.timing;
    if (!span || !(timing?.clickToShownMs >= 0)) return;
    this.lastSpan = undefined;
    const { clickToShownMs, arrivedToShownMs } = timing;
    this.logger.info(
      `[render] ${previewTimingText({ clickToShownMs, extensionMs: span.extensionMs, restMs: span.restMs, arrivedToShownMs, messagingMs: clickToShownMs - span.extensionMs - arrivedToShownMs, bytes: span.bytes })}`,
    );
  }

  private async runRender(raw: unknown): Promise<PreviewOutcome | undefined> {
    const render = ++this.renders;
    const received = performance.now();
    this.lastSpan = undefined;
    try {
      const form = this.checked(raw);
      this.post({ type: 'rendering' });
      const target = await resolveTarget(this.server, this.context.secrets);
      const requested = performance.now();
      const capture = await renderPreview(new RenderClient(target), form, { fontReport: target.local, fontBytes: await this.fontBytes(form), fetch });
      const answered = performance.now();
      if (render !== this.renders) return undefined;
      this.last = { bytes: capture.bytes, contentType: capture.contentType };
      const { message } = capture;
      this.logger.info(
        `[render] ${form.endpoint} through ${target.label}: ${capture.bytes.length} bytes, ${message.browserMsUsed ?? '?'} browser ms${message.warnings.length ? `; ${message.warnings.join(' ')}` : ''}`,
      );
      this.post(message);
      this.lastSpan = { extensionMs: performance.now() - received, restMs: answered - requested, bytes: capture.bytes.length };
      return message;
    } catch (error) {
      if (render !== this.renders) return undefined;
      // A failed render takes the previous capture with it: neither Save nor the webview shows it as current.
      this.last = undefined;
      const text = error instanceof Error ? error.message : String(error);
      this.logger.warn(`[render] ${text}`);
      const failed = { type: 'renderFailed', message: error instanceof FormError ? text : `The render failed: ${text}` } as const;
      this.post(failed);
      return error instanceof FormError ? { type: 'refused', message: text, problems: error.problems } : failed;
    }
  }

  private async pickFontFile(): Promise<void> {
    const picked = await vscode.window.showOpenDialog({
      title: 'Choose a font file',
      canSelectMany: false,
      filters: { Fonts: ['woff2', 'woff', 'ttf', 'otf'] },
    });
    const file = picked?.[0];
    if (!file) return;
    this.post({ type: 'fontFile', source: { kind: 'file', path: file.fsPath, name: file.path.split('/').pop() ?? 'font' } });
  }

  private async copyCurl(raw: unknown, revealToken: boolean): Promise<void> {
    const form = this.checked(raw);
    const target = await resolveTarget(this.server, this.context.secrets);
    const { body } = previewRequest(form, await this.fontBytes(form));
    await vscode.env.clipboard.writeText(renderCurl(target, form.endpoint, body, revealToken));
    void vscode.window.showInformationMessage(
      revealToken ? 'Copied the cURL command, with the token.' : 'Copied the cURL command (the token is $CLOUDFLARE_API_TOKEN).',
    );
  }

  private async save(): Promise<void> {
    if (!this.last) throw new Error('Render something first.');
    const pdf = this.last.contentType.includes('pdf');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const defaultUri = folder ? vscode.Uri.joinPath(folder, pdf ? 'render.pdf' : 'render.png') : undefined;
    const target = await vscode.window.showSaveDialog({
      ...(defaultUri ? { defaultUri } : {}),
      filters: pdf ? { PDF: ['pdf'] } : { Images: ['png', 'jpeg', 'webp'] },
    });
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
    this.panel.dispose();
  }
}
