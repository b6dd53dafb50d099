import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PreviewForm, PreviewTiming, ToExtension, ToWebview } from '../../src/core/browserRendering/previewProtocol';
import type { HookbenchApi } from '../../src/vscode/hookbench';
import type { PreviewPanel } from '../../src/vscode/renderPreview/previewPanel';
import { reportFigure, requestScreenshot, userDoes } from './reporter';

async function api(): Promise<HookbenchApi> {
  const ext = vscode.extensions.getExtension<HookbenchApi>('hookbench.hookbench')!;
  return ext.activate();
}

const extensionRoot = () => vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath;

const FORM: PreviewForm = {
  source: 'html',
  url: '',
  html: '<h1 id="title">Invoice 1042</h1><p lang="zh">谢谢 你的订单</p><p>Thanks 🎉</p>',
  endpoint: 'screenshot',
  width: 800,
  height: 400,
  scale: 1,
  font: 'FreeMono',
  customFamily: '',
  weight: 'normal',
  style: 'normal',
  fallback: 'sans-serif',
};

type Rendered = Extract<ToWebview, { type: 'rendered' }>;
/** Render clicks timed in the preview's figure. */
const CLICKS = 9;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
type Displayed = Extract<ToExtension, { type: 'displayed' }>;

/** The next time the webview says what its results show, after `act`. */
function nextDisplay(panel: PreviewPanel, act: () => unknown, timeoutMs = 45_000): Promise<Displayed> {
  return new Promise<Displayed>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`the webview did not display; sent: ${JSON.stringify(panel.sent.map((m) => (m.type === 'error' || m.type === 'renderFailed' || m.type === 'checked' ? m : m.type)))}`));
    }, timeoutMs);
    const sub = panel.onDidDisplay((message) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(message);
    });
    void Promise.resolve(act()).catch(reject);
  });
}

/** Opens the preview with a form (which renders it) and waits until the webview has drawn it. */
async function renderInPreview(form: PreviewForm): Promise<{ panel: PreviewPanel; rendered: Rendered; displayed: Displayed }> {
  // Activated first: a command that activates the extension comes back through the workbench,
  // which cannot carry the panel object (it arrives as null).
  await api();
  const started = performance.now();
  const panel = (await vscode.commands.executeCommand<PreviewPanel>('hookbench.render.openPreview'))!;
  const before = panel.sent.length;
  const displayed = await nextDisplay(panel, () => vscode.commands.executeCommand('hookbench.render.openPreview', form));
  const failure = panel.sent.slice(before).find((m) => m.type === 'error' || m.type === 'renderFailed');
  assert.equal(failure, undefined, JSON.stringify(failure));
  const rendered = panel.sent.findLast((m): m is Rendered => m.type === 'rendered')!;
  reportFigure(`render preview ${form.endpoint}: command → displayed in the webview`, `${Math.round(performance.now() - started)} ms`);
  return { panel, rendered, displayed };
}

/** A site on port 0 whose every path is a 404. */
async function missingFonts(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((_req, res) => res.writeHead(404, 'Not Found').end('no such font'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('Render preview', () => {
  it('renders a page through the local emulator with an installed font, and the webview shows it with the font report', async () => {
    const hookbench = await api();
    await hookbench.server.start();
    assert.match(hookbench.server.renderUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
    const { rendered, displayed } = await renderInPreview(FORM);
    assert.equal(rendered.contentType, 'image/png');
    const png = Buffer.from(rendered.data, 'base64');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [800, 400]);
    const elements = rendered.report!.elements;
    const title = elements.find((e) => e.selector.endsWith('#title'))!;
    assert.deepEqual(title.requested, ['FreeMono', 'sans-serif']);
    assert.deepEqual(title.fonts.map((f) => f.family), ['FreeMono']);
    assert.equal(title.fallback, false);
    const chinese = elements.find((e) => e.text === '谢谢 你的订单')!;
    assert.ok(chinese.fonts.some((f) => f.family === 'Noto Sans CJK SC'), JSON.stringify(chinese.fonts));
    assert.equal(chinese.fallback, true, 'FreeMono has no CJK glyphs: flagged');
    // Each font once: FreeMono drew three elements and is one row.
    const fonts = rendered.report!.fonts;
    assert.deepEqual(fonts.filter((f) => f.family === 'FreeMono').map((f) => f.elements.length), [elements.length]);
    assert.equal(new Set(fonts.map((f) => f.family)).size, fonts.length);
    assert.deepEqual(rendered.warnings, []);
    assert.deepEqual({ ...displayed, drawnWidth: undefined }, { type: 'displayed', contentType: 'image/png', pages: 1, reportRows: fonts.length, warnings: [], zoom: 'fit', drawnWidth: undefined, imageSize: { width: 800, height: 400 } });
    assert.ok(await requestScreenshot('render-preview-png', extensionRoot()), 'the launcher took the screenshot');
  });

  it('injects a custom font file as base64, renders a PDF, and the webview draws its pages with pdf.js', async () => {
    const fontFile = path.join(os.tmpdir(), 'HookbenchInjected.ttf');
    fs.copyFileSync('/usr/share/fonts/truetype/tlwg/Purisa.ttf', fontFile);
    const { rendered, displayed } = await renderInPreview({ ...FORM, endpoint: 'pdf', font: 'custom', customFamily: 'Injected', customSource: { kind: 'file', path: fontFile, name: 'HookbenchInjected.ttf' } });
    assert.equal(rendered.contentType, 'application/pdf');
    assert.equal(Buffer.from(rendered.data, 'base64').subarray(0, 5).toString('latin1'), '%PDF-');
    const title = rendered.report!.elements.find((e) => e.selector.endsWith('#title'))!;
    assert.deepEqual(title.fonts.map((f) => [f.family, f.custom, f.requestedAs]), [['Purisa', true, 'Injected']]);
    assert.equal(displayed.pages, 1);
    assert.ok(await requestScreenshot('render-preview-pdf', extensionRoot()));
  });

  it('a custom font that does not load is a warning at the top of the results, naming why and what drew the text', async () => {
    const site = await missingFonts();
    try {
      const url = `${site.url}/brand.woff2`;
      const { rendered, displayed } = await renderInPreview({ ...FORM, font: 'custom', customFamily: 'Brand', customSource: { kind: 'url', url } });
      assert.equal(rendered.warnings.length, 1);
      assert.match(rendered.warnings[0]!, new RegExp(`^Font 'Brand' did not load: ${url.replace(/[.?]/g, '\\$&')} answered HTTP 404 Not Found; the text was drawn with Liberation Sans`));
      assert.deepEqual(displayed.warnings, rendered.warnings.map((w) => `⚠ ${w}`), 'the webview shows it');
      assert.ok(await requestScreenshot('render-preview-font-warning', extensionRoot()));
    } finally {
      site.close();
    }
  });

  it('refuses a form with invalid fields before the emulator, naming each field; the webview asks as the user types', async () => {
    const panel = (await vscode.commands.executeCommand<PreviewPanel>('hookbench.render.openPreview'))!;
    const before = panel.sent.length;
    const displayed = await nextDisplay(panel, () => panel.render({ ...FORM, width: 0, font: 'custom', customSource: undefined }));
    const sent = panel.sent.slice(before);
    assert.ok(!sent.some((m) => m.type === 'rendering'), 'no render started');
    const checked = sent.find((m) => m.type === 'checked');
    assert.ok(checked?.type === 'checked');
    assert.deepEqual(checked.problems.map((p) => p.field), ['width', 'customSource']);
    assert.equal(displayed.contentType, null);
    assert.match(displayed.error ?? '', /^Fix the form first: Width: a whole number from 1 to 16384; Font URL or file: choose a font URL or a font file/);
    // The webview shows the form it was given and asks which fields stop a render: its Render button waits for the answer.
    const answered = Date.now() + 10_000;
    while (!panel.sent.slice(before).some((m) => m.type === 'checked' && m.requestId !== undefined && m.problems.length === 2) && Date.now() < answered) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(panel.sent.slice(before).some((m) => m.type === 'checked' && m.requestId !== undefined), 'the webview checked the form it shows');
    assert.ok(await requestScreenshot('render-preview-invalid-fields', extensionRoot()));
  });

  it('a failed render clears the previous capture and its font report', async () => {
    const { panel } = await renderInPreview(FORM);
    const closed = await missingFonts();
    const port = new URL(closed.url).port;
    closed.close();
    const displayed = await nextDisplay(panel, () => panel.render({ ...FORM, source: 'url', url: `http://127.0.0.1:${port}/` }));
    assert.deepEqual({ ...displayed, error: undefined }, { type: 'displayed', contentType: null, pages: 0, reportRows: 0, warnings: [], zoom: 'fit', error: undefined });
    assert.match(displayed.error ?? '', /^The render failed: net::ERR_CONNECTION_REFUSED/);
    assert.ok(await requestScreenshot('render-preview-failed', extensionRoot()));
  });

  it('shows the image a Render click asks for, and reports the time from the click to the image shown (p50 of 9)', async () => {
    const { panel } = await renderInPreview(FORM);
    const before = panel.timings.length;
    const sizes: string[] = [];
    for (let click = 0; click < CLICKS; click++) {
      // The user presses the webview's own Render button (a person's pace: the step is a file the launcher polls).
      const displayed = await nextDisplay(panel, () => userDoes({ clickInWebview: 'vscode-button#render' }));
      assert.equal(displayed.contentType, 'image/png');
      assert.ok(displayed.timing, 'the webview timed the click it rendered');
      sizes.push(`${displayed.imageSize?.width}×${displayed.imageSize?.height}`);
    }
    assert.deepEqual(sizes, Array.from({ length: CLICKS }, () => `${FORM.width}×${FORM.height}`), 'each click showed a decoded image of the form\'s size');
    const timings = panel.timings.slice(before);
    assert.equal(timings.length, CLICKS);
    const p50 = (pick: (t: PreviewTiming) => number) => median(timings.map(pick)).toFixed(0);
    reportFigure(`render preview: Render click → image shown, p50 of ${CLICKS} (${timings[0]!.bytes} B PNG, ${FORM.width}×${FORM.height})`, `${p50((t) => t.clickToShownMs)} ms`);
    reportFigure('render preview: of which the extension (REST calls in it), p50', `${p50((t) => t.extensionMs)} ms (${p50((t) => t.restMs)} ms)`);
    reportFigure('render preview: of which the messages, p50', `${p50((t) => t.messagingMs)} ms`);
    reportFigure('render preview: of which the webview (message → image decoded), p50', `${p50((t) => t.arrivedToShownMs)} ms`);
    reportFigure('render preview: every click → shown', timings.map((t) => t.clickToShownMs.toFixed(0)).join(', ') + ' ms');
  });

  it('zooms a PNG capture to fit the panel, or to its actual pixels', async () => {
    const { panel, displayed } = await renderInPreview({ ...FORM, width: 2400, height: 300 });
    assert.equal(displayed.zoom, 'fit');
    assert.ok(displayed.drawnWidth! < 2400, `fitted to the panel: ${displayed.drawnWidth} px`);
    const actual = await nextDisplay(panel, () => panel.zoom('actual'));
    assert.deepEqual([actual.zoom, actual.drawnWidth], ['actual', 2400]);
    assert.ok(await requestScreenshot('render-preview-zoom-actual', extensionRoot()));
    const fitted = await nextDisplay(panel, () => panel.zoom('fit'));
    assert.deepEqual([fitted.zoom, fitted.drawnWidth], ['fit', displayed.drawnWidth]);
  });

  it('renders the active HTML file, and renders it again when it is saved', async () => {
    const file = vscode.Uri.file(path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'invoice-preview.html'));
    fs.writeFileSync(file.fsPath, '<h1 id="title">Version one</h1>');
    try {
      const panel = (await vscode.commands.executeCommand<PreviewPanel>('hookbench.render.openPreview'))!;
      // The user opens the file beside the preview and runs the command from the palette.
      const document = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(document, vscode.ViewColumn.Beside);
      const first = await nextDisplay(panel, () => vscode.commands.executeCommand('hookbench.render.activeFile'));
      assert.equal(first.contentType, 'image/png');
      const texts = () => panel.sent.findLast((m): m is Rendered => m.type === 'rendered')!.report!.elements.map((e) => e.text);
      assert.deepEqual(texts(), ['Version one']);
      const setForm = panel.sent.findLast((m) => m.type === 'setForm');
      assert.equal(setForm?.type === 'setForm' ? setForm.form.htmlFile : undefined, file.toString());
      const edit = new vscode.WorkspaceEdit();
      edit.replace(file, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), '<h1 id="title">Version two</h1>');
      await vscode.workspace.applyEdit(edit);
      const second = await nextDisplay(panel, () => document.save());
      assert.equal(second.contentType, 'image/png');
      assert.deepEqual(texts(), ['Version two']);
      assert.ok(await requestScreenshot('render-preview-active-file', extensionRoot()));
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(file.fsPath, { force: true });
    }
  });

  it('refuses a file:// URL before it reaches the emulator', async () => {
    const panel = (await vscode.commands.executeCommand<PreviewPanel>('hookbench.render.openPreview', { ...FORM, source: 'url', url: 'file:///etc/passwd' }))!;
    const failure = panel.sent.findLast((m) => m.type === 'renderFailed');
    assert.ok(failure && failure.type === 'renderFailed');
    assert.match(failure.message, /URL: only https, http URLs \(not file:\)/);
  });

  it('serves the webview under a strict Content Security Policy: no inline or eval, scripts by nonce only', async () => {
    const panel = (await vscode.commands.executeCommand<PreviewPanel>('hookbench.render.openPreview'))!;
    const html = panel.panel.webview.html;
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
    assert.deepEqual(directives.get('default-src'), ["'none'"]);
    assert.equal(directives.get('script-src')?.length, 1);
    assert.match(directives.get('script-src')![0]!, /^'nonce-[A-Za-z0-9+/=]{16,}'$/);
    assert.deepEqual(directives.get('worker-src'), ['blob:']);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|unsafe-hashes/);
    assert.doesNotMatch(csp, /(^|\s)(\*|https?:|data:\s*;?\s*$)(\s|;|$)/, 'no wildcard or scheme-wide source');
    assert.ok(!directives.get('script-src')!.includes('data:') && !directives.get('connect-src')!.some((v) => v === '*' || v === 'https:'));
    assert.ok(panel.panel.webview.options.localResourceRoots?.every((root) => root.path.endsWith('/dist')), 'only dist/ is readable');
    // Every script tag carries the nonce; no token or secret is in the page.
    for (const tag of html.match(/<script[^>]*>/g) ?? []) assert.match(tag, /nonce="/);
    const hookbench = await api();
    assert.ok(!html.includes(hookbench.server.renderToken) && !html.includes(hookbench.server.adminToken));
    assert.ok(!JSON.stringify(panel.sent).includes(hookbench.server.renderToken), 'no message to the webview carries the token');
  });
});
