// What a user gets from the .vsix: Hookbench installed with `--install-extension` into
// code-server (no development folder), each part running from the package's own files.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { schemeFor } from '../../../src/core/signing';
import type { PreviewForm, PreviewOutcome } from '../../../src/core/browserRendering/previewProtocol';
import type { HookbenchApi } from '../../../src/vscode/api';
import { commandLine, processTree } from '../../unit/helpers/procfs';
import { nextRestart, startReceiver, withSecret } from '../helpers';
import { previewShowsOutcome, type PreviewShown } from '../previewShown';
import { readWebview, reportFigure } from '../reporter';

const SECRET = 'smoke-secret';

function installed(): vscode.Extension<HookbenchApi> {
  const ext = vscode.extensions.getExtension<HookbenchApi>('hookbench.hookbench');
  assert.ok(ext, 'Hookbench is installed');
  return ext;
}

const packaged = (...parts: string[]) => path.join(installed().extensionPath, ...parts);

/** The serve process the extension started: a child of this extension host running the package's dist/cli.js. */
function serveProcess(): number {
  const cli = packaged('dist', 'cli.js');
  const pid = processTree(process.pid).find((p) => {
    const args = commandLine(p);
    return args[1] === cli && args[2] === 'serve';
  });
  assert.ok(pid, `a process runs ${cli} serve`);
  return pid;
}

function signedPush(delivery: string) {
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'Acme/Smoke' }, pusher: { name: 'zoe' }, commits: [] });
  const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
  return { body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery } };
}

const FORM: PreviewForm = {
  source: 'html',
  url: '',
  html: '<h1 id="title">Invoice 1042</h1><p>Thanks</p>',
  endpoint: 'screenshot',
  width: 640,
  height: 320,
  scale: 1,
  font: 'DejaVu Sans',
  customFamily: '',
  weight: 'normal',
  style: 'normal',
  fallback: 'sans-serif',
};

/** Opens the preview with `form` (which renders it) and resolves with what the webview shows once it shows it. */
async function renderInPreview(form: PreviewForm): Promise<PreviewShown> {
  const outcome = await vscode.commands.executeCommand<PreviewOutcome | undefined>('hookbench.render.openPreview', form);
  assert.equal(outcome?.type, 'rendered', JSON.stringify(outcome?.type === 'rendered' ? outcome.type : outcome));
  return previewShowsOutcome(outcome);
}

describe('The installed package', () => {
  it('is the .vsix installed with --install-extension, declared for the workspace side, and activates', async () => {
    const ext = installed();
    const expected = process.env['HOOKBENCH_INSTALLED_EXTENSION'];
    assert.ok(expected, 'the launcher says where it installed the package');
    assert.equal(fs.realpathSync(ext.extensionPath), fs.realpathSync(expected));
    assert.ok(fs.existsSync(packaged('.vsixmanifest')), 'installed from a .vsix (VS Code keeps its manifest)');
    assert.ok(!fs.existsSync(packaged('src')), 'no sources in the package');
    assert.deepEqual(ext.packageJSON.extensionKind, ['workspace']);
    assert.equal(ext.extensionKind, vscode.ExtensionKind.Workspace);
    const api = await ext.activate();
    assert.equal(ext.isActive, true);
    assert.equal(typeof api.receiver.ready, 'function');
    reportFigure('installed package: activation', `${api.timings.activationMs.toFixed(1)} ms`);
  });

  it('runs the receiver from the packaged dist/cli.js, and the built-in worker answers a signed webhook', async () => {
    const api = await installed().activate();
    const url = await withSecret(api, 'GITHUB_WEBHOOK_SECRET', SECRET);
    serveProcess();
    const push = signedPush('smoke-1');
    const response = await fetch(`${url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers });
    assert.equal(response.status, 200, await response.text());
  });

  it('answers a read-only query through the packaged admin query worker (dist/adminQueryWorker.js)', async () => {
    const api = await installed().activate();
    const url = await startReceiver();
    const response = await fetch(`${url}/__hookbench/instances/webhook-agent/acme-smoke/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.receiver.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM events' }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.deepEqual(await response.json(), { columns: ['n'], rows: [[1]] });
  });

  it('copies a webhook URL forwarded the VS Code way (code-server is a remote host) that reaches the receiver', async () => {
    await installed().activate();
    const local = await startReceiver();
    const copied = await vscode.commands.executeCommand<string>('hookbench.receiver.copyUrl', 'github');
    assert.equal(await vscode.env.clipboard.readText(), copied);
    const port = new URL(local).port;
    // code-server forwards a port under its own origin: <origin>/proxy/<port>/…
    assert.match(copied, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/proxy/${port}/webhooks/github$`));
    assert.notEqual(new URL(copied).port, port);
    const push = signedPush('smoke-forwarded');
    const response = await fetch(copied, { method: 'POST', body: push.body, headers: push.headers });
    assert.equal(response.status, 200, await response.text());
  });

  it('opens the render preview and draws a PNG capture', async () => {
    const shown = await renderInPreview(FORM);
    assert.equal(shown.contentType, 'image/png');
  });

  it('draws a PDF with pdf.js, its worker loaded from the package', async () => {
    const shown = await renderInPreview({ ...FORM, endpoint: 'pdf' });
    assert.equal(shown.contentType, 'application/pdf');
    assert.equal(shown.pages, 1, 'pdf.js drew the page');
    const worker = await readWebview<string>('Render Preview', `document.querySelector('#app')?.dataset.pdfWorker ?? ''`);
    assert.ok(worker.endsWith('/dist/pdf.worker.min.mjs'), worker);
    assert.ok(decodeURIComponent(worker).includes(installed().extensionPath), `${worker} is the package's`);
  });

  it("bundles the user's TypeScript agents worker with the packaged esbuild binary and serves it", async () => {
    const api = await installed().activate();
    await startReceiver();
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    assert.ok(fs.existsSync(path.join(folder, 'counter', 'src', 'index.ts')), 'the launcher put the counter worker in the workspace');
    const restarted = nextRestart(api);
    const settings = vscode.workspace.getConfiguration('hookbench');
    await settings.update('worker.entry', 'counter/src/index.ts', vscode.ConfigurationTarget.Workspace);
    await settings.update('worker.config', 'counter/wrangler.jsonc', vscode.ConfigurationTarget.Workspace);
    const url = await restarted;
    const hit = await fetch(`${url}/agents/counter-agent/smoke`, { method: 'POST', body: 'smoke' });
    assert.equal(hit.status, 200, await hit.clone().text());
    assert.equal(await hit.text(), '1');
    const read = (await (await fetch(`${url}/agents/counter-agent/smoke`)).json()) as { greeting: string; hits: number };
    assert.deepEqual([read.greeting, read.hits], ['hello', 1]);
    // esbuild's service process, started by the serve process, is the package's own binary.
    const binary = packaged('dist', 'node_modules', '@esbuild', `${process.platform}-${process.arch}`, 'bin', 'esbuild');
    const services = processTree(serveProcess()).filter((pid) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/exe`) === binary;
      } catch {
        return false;
      }
    });
    assert.equal(services.length, 1, `one esbuild service runs ${binary}`);
  });
});
