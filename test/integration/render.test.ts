import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parsePreviewTiming, type PreviewForm, type PreviewOutcome, type PreviewTiming, type ToWebview } from '../../src/core/browserRendering/previewProtocol';
import { api, startReceiver, type HookbenchApi } from './helpers';
import { clickInPreview, previewShows, previewShowsNext, previewShowsOutcome, type PreviewShown } from './previewShown';
import { readWebview, reportFigure, requestScreenshot, userDoes } from './reporter';

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
/** What the preview showed, as the old `displayed` message said it: the capture, its pages and report rows, the warnings, the failure, the zoom, the image. */
const displayedOf = ({ contentType, pages, reportRows, warnings, error, zoom, imageSize }: PreviewShown) => ({
  contentType,
  pages,
  reportRows,
  warnings,
  error,
  zoom,
  imageSize,
});

/** Opens the preview with a form (which renders it) and waits until the webview shows it. */
async function renderInPreview(form: PreviewForm): Promise<{ rendered: Rendered; shown: PreviewShown }> {
  await api();
  const started = performance.now();
  const outcome = await vscode.commands.executeCommand<PreviewOutcome | undefined>('hookbench.render.openPreview', form);
  reportFigure(`render preview ${form.endpoint}: command → answered`, `${Math.round(performance.now() - started)} ms`);
  assert.equal(outcome?.type, 'rendered', JSON.stringify(outcome?.type === 'rendered' ? outcome.type : outcome));
  const shown = await previewShowsOutcome(outcome);
  return { rendered: outcome as Rendered, shown };
}

/** The timing lines the preview wrote to the log (one per Render click shown). */
const timingsLogged = (hookbench: HookbenchApi): PreviewTiming[] => hookbench.recentLog().flatMap((line) => parsePreviewTiming(line) ?? []);

/** A site on port 0 whose every path is a 404. */
async function missingFonts(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((_req, res) => res.writeHead(404, 'Not Found').end('no such font'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('Render preview', () => {
  it('renders a page through the local emulator with an installed font, and the webview shows it with the font report', async () => {
    const hookbench = await api();
    await startReceiver();
    assert.match(hookbench.receiver.renderUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
    const { rendered, shown } = await renderInPreview(FORM);
    assert.equal(rendered.contentType, 'image/png');
    const png = Buffer.from(rendered.data, 'base64');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [800, 400]);
    const elements = rendered.report!.elements;
    const title = elements.find((e) => e.selector.endsWith('#title'))!;
    assert.deepEqual(title.requested, ['FreeMono', 'sans-serif']);
    assert.deepEqual(
      title.fonts.map((f) => f.family),
      ['FreeMono'],
    );
    assert.equal(title.fallback, false);
    const chinese = elements.find((e) => e.text === '谢谢 你的订单')!;
    assert.ok(
      chinese.fonts.some((f) => f.family === 'Noto Sans CJK SC'),
      JSON.stringify(chinese.fonts),
    );
    assert.equal(chinese.fallback, true, 'FreeMono has no CJK glyphs: flagged');
    // Each font once: FreeMono drew three elements and is one row.
    const fonts = rendered.report!.fonts;
    assert.deepEqual(
      fonts.filter((f) => f.family === 'FreeMono').map((f) => f.elements.length),
      [elements.length],
    );
    assert.equal(new Set(fonts.map((f) => f.family)).size, fonts.length);
    assert.deepEqual(rendered.warnings, []);
    assert.deepEqual(displayedOf(shown), {
      contentType: 'image/png',
      pages: 1,
      reportRows: fonts.length,
      warnings: [],
      error: undefined,
      zoom: 'fit',
      imageSize: { width: 800, height: 400 },
    });
    assert.ok(await requestScreenshot('render-preview-png', extensionRoot()), 'the launcher took the screenshot');
  });

  it('injects a custom font file as base64, renders a PDF, and the webview draws its pages with pdf.js', async () => {
    const fontFile = path.join(os.tmpdir(), 'HookbenchInjected.ttf');
    fs.copyFileSync('/usr/share/fonts/truetype/tlwg/Purisa.ttf', fontFile);
    const { rendered, shown } = await renderInPreview({
      ...FORM,
      endpoint: 'pdf',
      font: 'custom',
      customFamily: 'Injected',
      customSource: { kind: 'file', path: fontFile, name: 'HookbenchInjected.ttf' },
    });
    assert.equal(rendered.contentType, 'application/pdf');
    assert.equal(Buffer.from(rendered.data, 'base64').subarray(0, 5).toString('latin1'), '%PDF-');
    const title = rendered.report!.elements.find((e) => e.selector.endsWith('#title'))!;
    assert.deepEqual(
      title.fonts.map((f) => [f.family, f.custom, f.requestedAs]),
      [['Purisa', true, 'Injected']],
    );
    assert.equal(shown.pages, 1);
    assert.ok(await requestScreenshot('render-preview-pdf', extensionRoot()));
  });

  it('a custom font that does not load is a warning at the top of the results, naming why and what drew the text', async () => {
    const site = await missingFonts();
    try {
      const url = `${site.url}/brand.woff2`;
      const { rendered, shown } = await renderInPreview({ ...FORM, font: 'custom', customFamily: 'Brand', customSource: { kind: 'url', url } });
      assert.equal(rendered.warnings.length, 1);
      assert.match(
        rendered.warnings[0]!,
        new RegExp(`^Font 'Brand' did not load: ${url.replace(/[.?]/g, '\\$&')} answered HTTP 404 Not Found; the text was drawn with Liberation Sans`),
      );
      assert.deepEqual(
        shown.warnings,
        rendered.warnings.map((w) => `⚠ ${w}`),
        'the webview shows it',
      );
      assert.ok(await requestScreenshot('render-preview-font-warning', extensionRoot()));
    } finally {
      site.close();
    }
  });

  it('refuses a form with invalid fields before the emulator, naming each field; the webview asks as the user types', async () => {
    await api();
    const outcome = await vscode.commands.executeCommand<PreviewOutcome | undefined>('hookbench.render.openPreview', {
      ...FORM,
      width: 0,
      font: 'custom',
      customSource: undefined,
    });
    assert.ok(outcome?.type === 'refused', `no render started: ${JSON.stringify(outcome)}`);
    assert.deepEqual(
      outcome.problems.map((p) => p.field),
      ['width', 'customSource'],
    );
    const shown = await previewShowsOutcome(outcome);
    assert.equal(shown.contentType, null);
    assert.match(shown.error ?? '', /^Fix the form first: Width: a whole number from 1 to 16384; Font URL or file: choose a font URL or a font file/);
    // The webview shows the form it was given and asks which fields stop a render: its Render button waits for the answer.
    const checked = await previewShows(`document.querySelectorAll('[invalid]').length === 2 && document.querySelector('#render')?.disabled === true`);
    assert.deepEqual(checked.marked, ['Width', 'Font URL'], 'the webview checked the form it shows');
    assert.equal(checked.renderDisabled, true);
    assert.ok(await requestScreenshot('render-preview-invalid-fields', extensionRoot()));
  });

  it('a failed render clears the previous capture and its font report', async () => {
    await renderInPreview(FORM);
    const closed = await missingFonts();
    const port = new URL(closed.url).port;
    closed.close();
    const outcome = await vscode.commands.executeCommand<PreviewOutcome | undefined>('hookbench.render.openPreview', {
      ...FORM,
      source: 'url',
      url: `http://127.0.0.1:${port}/`,
    });
    const shown = await previewShowsOutcome(outcome);
    assert.deepEqual(
      { ...displayedOf(shown), error: undefined },
      { contentType: null, pages: 0, reportRows: 0, warnings: [], zoom: 'fit', error: undefined, imageSize: undefined },
    );
    assert.match(shown.error ?? '', /^The render failed: net::ERR_CONNECTION_REFUSED/);
    assert.ok(await requestScreenshot('render-preview-failed', extensionRoot()));
  });

  it('shows the image a Render click asks for, and reports the time from the click to the image shown (p50 of 9)', async () => {
    const hookbench = await api();
    await renderInPreview(FORM);
    const before = timingsLogged(hookbench).length;
    const sizes: string[] = [];
    for (let click = 0; click < CLICKS; click++) {
      // The user presses the webview's own Render button (a person's pace: the step is a file the launcher polls).
      const shown = await previewShowsNext(() => clickInPreview('vscode-button#render'));
      assert.equal(shown.contentType, 'image/png');
      // The webview timed the click, and the preview logged it with its own part.
      for (const deadline = Date.now() + 10_000; timingsLogged(hookbench).length < before + click + 1 && Date.now() < deadline;)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(timingsLogged(hookbench).length, before + click + 1, 'the webview timed the click it rendered');
      sizes.push(`${shown.imageSize?.width}×${shown.imageSize?.height}`);
    }
    assert.deepEqual(
      sizes,
      Array.from({ length: CLICKS }, () => `${FORM.width}×${FORM.height}`),
      "each click showed a decoded image of the form's size",
    );
    const timings = timingsLogged(hookbench).slice(before);
    assert.equal(timings.length, CLICKS);
    const p50 = (pick: (t: PreviewTiming) => number) => median(timings.map(pick)).toFixed(0);
    reportFigure(
      `render preview: Render click → image shown, p50 of ${CLICKS} (${timings[0]!.bytes} B PNG, ${FORM.width}×${FORM.height})`,
      `${p50((t) => t.clickToShownMs)} ms`,
    );
    reportFigure('render preview: of which the extension (REST calls in it), p50', `${p50((t) => t.extensionMs)} ms (${p50((t) => t.restMs)} ms)`);
    reportFigure('render preview: of which the messages, p50', `${p50((t) => t.messagingMs)} ms`);
    reportFigure('render preview: of which the webview (message → image decoded), p50', `${p50((t) => t.arrivedToShownMs)} ms`);
    reportFigure('render preview: every click → shown', timings.map((t) => t.clickToShownMs.toFixed(0)).join(', ') + ' ms');
  });

  it('zooms a PNG capture to fit the panel, or to its actual pixels', async () => {
    const { shown } = await renderInPreview({ ...FORM, width: 2400, height: 300 });
    assert.equal(shown.zoom, 'fit');
    assert.ok(shown.drawnWidth! < 2400, `fitted to the panel: ${shown.drawnWidth} px`);
    // The user presses 1:1, then Fit.
    await clickInPreview('vscode-button#zoom-actual');
    const actual = await previewShows(`document.querySelector('#capture img')?.style.width !== ''`);
    assert.deepEqual([actual.zoom, actual.drawnWidth], ['actual', 2400]);
    assert.ok(await requestScreenshot('render-preview-zoom-actual', extensionRoot()));
    await clickInPreview('vscode-button#zoom-fit');
    const fitted = await previewShows(`document.querySelector('#capture img')?.style.width === ''`);
    assert.deepEqual([fitted.zoom, fitted.drawnWidth], ['fit', shown.drawnWidth]);
  });

  it('the font box takes what is typed on Enter: a listed font by part of its name, or a family of your own', async () => {
    await renderInPreview(FORM);
    const box = `document.querySelector('#f-font')`;
    // The user clicks the box, types part of a listed name and presses Enter; then a family of their own.
    await clickInPreview('#f-font');
    await userDoes({ type: 'dejavu ser', press: ['Enter'] });
    await readWebview<string>('Render Preview', `${box}.value`, `${box}.value === 'DejaVu Serif'`);
    await clickInPreview('#f-font');
    await userDoes({ type: 'Inter Display', press: ['Enter'] });
    const chosen = await readWebview<{ value: string; shown: string }>(
      'Render Preview',
      `({ value: ${box}.value, shown: ${box}.shadowRoot.querySelector('input').value })`,
      `${box}.value === 'Inter Display'`,
    );
    assert.deepEqual(chosen, { value: 'Inter Display', shown: 'Inter Display' });
  });

  it('renders the active HTML file, and renders it again when it is saved', async () => {
    const file = vscode.Uri.file(path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'invoice-preview.html'));
    fs.writeFileSync(file.fsPath, '<h1 id="title">Version one</h1>');
    try {
      await vscode.commands.executeCommand('hookbench.render.openPreview');
      // The user opens the file beside the preview and runs the command from the palette.
      const document = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(document, vscode.ViewColumn.Beside);
      const outcome = await vscode.commands.executeCommand<PreviewOutcome | undefined>('hookbench.render.activeFile');
      const first = await previewShowsOutcome(outcome);
      assert.equal(first.contentType, 'image/png');
      assert.deepEqual(outcome?.type === 'rendered' && outcome.report!.elements.map((e) => e.text), ['Version one']);
      assert.equal(first.htmlFile, 'From invoice-preview.html: renders again when you save it.', 'the form shows the file it came from');
      const edit = new vscode.WorkspaceEdit();
      edit.replace(file, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), '<h1 id="title">Version two</h1>');
      await vscode.workspace.applyEdit(edit);
      const second = await previewShowsNext(() => document.save());
      assert.equal(second.contentType, 'image/png');
      assert.deepEqual([...new Set(second.report.flatMap((row) => row.texts))], ['Version two']);
      assert.ok(await requestScreenshot('render-preview-active-file', extensionRoot()));
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(file.fsPath, { force: true });
    }
  });

  it('refuses a file:// URL before it reaches the emulator', async () => {
    const outcome = await vscode.commands.executeCommand<PreviewOutcome | undefined>('hookbench.render.openPreview', {
      ...FORM,
      source: 'url',
      url: 'file:///etc/passwd',
    });
    assert.ok(outcome && outcome.type !== 'rendered', JSON.stringify(outcome));
    assert.match(outcome.message, /URL: only https, http URLs \(not file:\)/);
  });

  it('serves the webview under a strict Content Security Policy: no inline or eval, scripts by nonce only', async () => {
    const hookbench = await api();
    await vscode.commands.executeCommand('hookbench.render.openPreview');
    // The page as the webview holds it, and every message it receives from now on.
    const page = await readWebview<{ csp: string; scripts: string[]; html: string }>(
      'Render Preview',
      `(window.addEventListener('message', (event) => (window.hookbenchTestSeen ??= []).push(JSON.stringify(event.data))), {
        csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '',
        scripts: [...document.querySelectorAll('script:not(#_vscodeApiScript)')].map((script) => script.outerHTML.replace(/>[\\s\\S]*$/, '>')),
        html: document.documentElement.outerHTML,
      })`,
    );
    const csp = page.csp;
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );
    assert.deepEqual(directives.get('default-src'), ["'none'"]);
    assert.equal(directives.get('script-src')?.length, 1);
    assert.match(directives.get('script-src')![0]!, /^'nonce-[A-Za-z0-9+/=]{16,}'$/);
    assert.deepEqual(directives.get('worker-src'), ['blob:']);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|unsafe-hashes/);
    assert.doesNotMatch(csp, /(^|\s)(\*|https?:|data:\s*;?\s*$)(\s|;|$)/, 'no wildcard or scheme-wide source');
    assert.ok(!directives.get('script-src')!.includes('data:') && !directives.get('connect-src')!.some((v) => v === '*' || v === 'https:'));
    // Only dist/ is readable: the page's own script loads from it, a file of the extension beside it does not.
    const reads = await readWebview<{ script: boolean; beside: boolean }>(
      'Render Preview',
      `(async () => {
        const script = document.querySelector('script[src]').src;
        const ok = (url) => fetch(url).then((response) => response.ok, () => false);
        return { script: await ok(script), beside: await ok(script.replace(/\\/dist\\/webview\\.js$/, '/package.json')) };
      })()`,
    );
    assert.deepEqual(reads, { script: true, beside: false }, 'only dist/ is readable');
    // Every script tag carries the nonce; no token or secret is in the page.
    assert.ok(page.scripts.length > 0);
    for (const tag of page.scripts) assert.match(tag, /nonce="/);
    assert.ok(!page.html.includes(hookbench.receiver.renderToken) && !page.html.includes(hookbench.receiver.adminToken));
    // A render: nothing the webview receives for it carries the token.
    await renderInPreview(FORM);
    const seen = await readWebview<string[]>('Render Preview', 'window.hookbenchTestSeen ?? []');
    assert.ok(
      seen.some((message) => message.includes('"rendered"')),
      'the webview received the render',
    );
    assert.ok(!seen.some((message) => message.includes(hookbench.receiver.renderToken)), 'no message to the webview carries the token');
  });
});
