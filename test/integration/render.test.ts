import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PreviewForm, ToWebview } from '../../src/core/render/previewProtocol';
import type { HookbenchApi } from '../../src/vscode/hookbench';
import type { PreviewPanel } from '../../src/vscode/render/previewPanel';
import { reportFigure, requestScreenshot } from './reporter';

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

/** Opens the preview with a form (which renders it) and waits until the webview has drawn it. */
async function renderInPreview(form: PreviewForm): Promise<{ panel: PreviewPanel; rendered: Rendered; displayed: { contentType: string; pages: number; reportRows: number } }> {
  const started = performance.now();
  const open = vscode.commands.executeCommand<PreviewPanel>('hookbench.render.openPreview');
  const panel = (await open)!;
  const displayed = new Promise<{ contentType: string; pages: number; reportRows: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the webview did not display the render; sent: ${JSON.stringify(panel.sent.map((m) => m.type === 'error' ? m : m.type))}`)), 45_000);
    const sub = panel.onDidDisplay((message) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(message);
    });
  });
  await vscode.commands.executeCommand('hookbench.render.openPreview', form);
  const error = panel.sent.findLast((m) => m.type === 'error');
  assert.equal(error, undefined, JSON.stringify(error));
  const rendered = panel.sent.findLast((m): m is Rendered => m.type === 'rendered')!;
  const shown = await displayed;
  reportFigure(`render preview ${form.endpoint}: command → displayed in the webview`, `${Math.round(performance.now() - started)} ms`);
  return { panel, rendered, displayed: shown };
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
    assert.deepEqual(displayed, { type: 'displayed', contentType: 'image/png', pages: 1, reportRows: elements.length });
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

  it('shows Cloudflare-style errors in the panel: a file:// URL is refused', async () => {
    const panel = (await vscode.commands.executeCommand<PreviewPanel>('hookbench.render.openPreview', { ...FORM, source: 'url', url: 'file:///etc/passwd' }))!;
    const error = panel.sent.findLast((m) => m.type === 'error');
    assert.ok(error && error.type === 'error');
    assert.match(error.message, /only http and https/);
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
