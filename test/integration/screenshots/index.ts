// The README's screenshots, staged in a real workbench by scripts/screenshots.mjs: Hookbench as
// installed from this build's .vsix, fed signed webhooks, its views and render preview opened; each
// scene asks the launcher to capture the window ("screenshot: NAME" in the report) into
// HOOKBENCH_SCREENSHOTS_DIR.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { schemeFor } from '../../../src/core/signing';
import type { PreviewForm } from '../../../src/core/render/previewProtocol';
import type { HookbenchApi } from '../../../src/vscode/hookbench';
import type { PreviewPanel } from '../../../src/vscode/render/previewPanel';
import { instancesNow, untilTree, withSecret } from '../helpers';
import { userDoes } from '../reporter';

const SECRET = 'readme-secret';

async function capture(name: string): Promise<void> {
  const report = process.env['HOOKBENCH_TEST_REPORT'];
  const dir = process.env['HOOKBENCH_SCREENSHOTS_DIR'];
  if (!report || !dir) throw new Error('run by scripts/screenshots.mjs');
  await vscode.commands.executeCommand('notifications.clearAll');
  // The secondary side bar (Chat, in newer VS Codes) is not Hookbench's.
  await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
  // Let the workbench finish drawing (trees, webview) before the capture.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const png = path.join(dir, `${name}.png`);
  fs.rmSync(png, { force: true });
  fs.appendFileSync(report, `screenshot: ${name}\n`);
  for (const started = Date.now(); !fs.existsSync(png); ) {
    if (Date.now() - started > 15_000) throw new Error(`no screenshot ${png}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function deliver(url: string, entity: string, event: string, delivery: string, payload: object, secret = SECRET): Promise<void> {
  const body = JSON.stringify(payload);
  const { headers } = schemeFor('github').sign({ secret, body: Buffer.from(body) });
  await fetch(`${url}/webhooks/github/${entity}`, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': delivery } });
}

async function explorerScene(api: HookbenchApi): Promise<void> {
  const url = await withSecret(api, 'GITHUB_WEBHOOK_SECRET', SECRET);
  const repository = { full_name: 'acme/widgets' };
  await deliver(url, 'acme%2Fwidgets', 'push', 'readme-1', { ref: 'refs/heads/main', repository, pusher: { name: 'zoe' }, commits: [{ id: 'a1b2c3', message: 'Fix invoice rounding' }] });
  await deliver(url, 'acme%2Fwidgets', 'pull_request', 'readme-2', { action: 'opened', number: 42, pull_request: { number: 42, title: 'Render invoices as PDF' }, repository });
  await deliver(url, 'acme%2Fwidgets', 'issues', 'readme-3', { action: 'labeled', issue: { number: 7, title: 'Webhook retries' }, repository });
  await deliver(url, 'acme%2Fgadgets', 'push', 'readme-4', { ref: 'refs/heads/main', repository: { full_name: 'acme/gadgets' }, commits: [] });
  await deliver(url, 'acme%2Fwidgets', 'push', 'readme-5', { ref: 'refs/heads/main', repository }, 'a-forged-secret');
  await vscode.commands.executeCommand('workbench.view.extension.hookbench');
  await untilTree(api, () => instancesNow(api), (instances) => instances.length === 2);
  // The tree has no getParent (reveal needs one): open the rows as a user does, by clicking them.
  const row = (level: number, label: string) => `.monaco-list-row[aria-level="${level}"][aria-label*=${JSON.stringify(label)}]`;
  await userDoes({ click: row(2, 'acme-widgets') });
  await userDoes({ click: row(3, 'State') });
  await userDoes({ click: row(3, 'Events') });
  // The rejected delivery, as received and answered, beside the views.
  const [newest] = await api.trees.deliveries.getChildren();
  await vscode.commands.executeCommand('hookbench.delivery.open', newest);
  // A narrower editor leaves the side bar wide enough for the items' descriptions.
  for (let i = 0; i < 4; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewWidth');
  await capture('explorer');
}

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

async function renderScene(): Promise<void> {
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

export async function run(): Promise<void> {
  const api = await vscode.extensions.getExtension<HookbenchApi>('hookbench.hookbench')!.activate();
  await explorerScene(api);
  await renderScene();
}
