// The README's render scene: an invoice rendered by the local Browser Rendering emulator in the
// render preview, with its font report.
import * as vscode from 'vscode';
import type { PreviewForm } from '../../../src/core/browserRendering/previewProtocol';
import type { PreviewPanel } from '../../../src/vscode/renderPreview/previewPanel';
import { capture } from './stage';

const INVOICE = `<!doctype html><html><body style="font-family: 'Open Sans', sans-serif; margin: 48px">
<h1 id="title" style="font-family: 'Liberation Serif', serif">Invoice 1042</h1>
<p>Acme Widgets Ltd · 22 November 2026</p>
<table style="width: 100%; border-collapse: collapse">
<tr><th align="left">Item</th><th align="right">Amount</th></tr>
<tr><td>Webhook relay, November</td><td align="right">€ 120.00</td></tr>
<tr><td>PDF renders (1,042)</td><td align="right">€ 10.42</td></tr>
</table>
<p lang="ja">ありがとうございました</p>
</body></html>`;

export async function renderScene(): Promise<void> {
  // Only the preview: the earlier scenes' editors and output closed.
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await vscode.commands.executeCommand('workbench.action.closePanel');
  const form: PreviewForm = {
    source: 'html',
    url: '',
    html: INVOICE,
    endpoint: 'screenshot',
    width: 800,
    height: 520,
    scale: 1,
    font: 'Open Sans',
    customFamily: '',
    weight: 'normal',
    style: 'normal',
    fallback: 'sans-serif',
  };
  const panel = (await vscode.commands.executeCommand<PreviewPanel>('hookbench.render.openPreview'))!;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the render preview did not display')), 60_000);
    const sub = panel.onDidDisplay(() => {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
    void vscode.commands.executeCommand('hookbench.render.openPreview', form);
  });
  await vscode.commands.executeCommand('workbench.action.closeSidebar');
  await capture('render-preview');
}
