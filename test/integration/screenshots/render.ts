// The README's render scene: an invoice rendered by the local Browser Rendering emulator in the
// render preview, with its font report.
import * as vscode from 'vscode';
import type { PreviewForm, PreviewOutcome } from '../../../src/core/browserRendering/previewProtocol';
import { previewShowsOutcome } from '../previewShown';
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
  const outcome = await vscode.commands.executeCommand<PreviewOutcome | undefined>('hookbench.render.openPreview', form);
  if (outcome?.type !== 'rendered') throw new Error(`the render preview did not render: ${JSON.stringify(outcome)}`);
  await previewShowsOutcome(outcome);
  await vscode.commands.executeCommand('workbench.action.closeSidebar');
  await capture('render-preview');
}
