// A worker of the workspace that stops building, in the real workbench: the saved syntax error is
// a Problem on its file and line and the status bar says the previous build still serves; once
// fixed, both go (src/vscode/receiver/workerProblems.ts).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, nextRestart, startReceiver, until, type HookbenchApi } from './helpers';
import { readWorkbench, requestScreenshot } from './reporter';

const WORKER = `interface Env {
  readonly GREETING?: string;
}

export default {
  async fetch(_request: Request, _env: Env): Promise<Response> {
    return new Response('built');
  },
};
`;
const BROKEN = WORKER.replace("return new Response('built');", "return new Response('built'));");
/** Line 7, column 33 (1-based): the extra parenthesis. */
const BROKEN_AT = { line: 6, character: 32 };

const statusBarText = `[...document.querySelectorAll('.statusbar-item')].map((item) => item.textContent).join(' | ')`;

describe('worker problems: a syntax error where a developer looks', () => {
  let hookbench: HookbenchApi;
  let url: string;
  let entry: string;

  before(async function () {
    this.timeout(60_000);
    hookbench = await api();
    await startReceiver();
    const project = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'broken-worker');
    fs.mkdirSync(path.join(project, 'src'), { recursive: true });
    fs.writeFileSync(path.join(project, 'wrangler.jsonc'), '{ "name": "broken-worker", "main": "src/index.ts", "compatibility_date": "2025-06-01" }\n');
    entry = path.join(project, 'src', 'index.ts');
    fs.writeFileSync(entry, WORKER);
    const restarted = nextRestart(hookbench, 45_000);
    await vscode.workspace.getConfiguration('hookbench').update('worker.entry', entry, vscode.ConfigurationTarget.Workspace);
    url = await restarted;
    assert.equal(await (await fetch(url)).text(), 'built');
  });

  after(async function () {
    this.timeout(60_000);
    const restarted = nextRestart(hookbench, 45_000);
    await vscode.workspace.getConfiguration('hookbench').update('worker.entry', undefined, vscode.ConfigurationTarget.Workspace);
    await restarted;
    fs.rmSync(path.dirname(path.dirname(entry)), { recursive: true, force: true });
  });

  it('shows a saved syntax error in Problems on its line and in the status bar, and clears both once fixed', async () => {
    const uri = vscode.Uri.file(entry);
    fs.writeFileSync(entry, BROKEN);
    const problems = await until(
      () => vscode.languages.getDiagnostics(uri),
      (found) => found.length > 0,
      'no Problem for the broken worker',
    );
    assert.equal(problems.length, 1);
    assert.deepEqual({ line: problems[0]!.range.start.line, character: problems[0]!.range.start.character }, BROKEN_AT);
    assert.equal(problems[0]!.severity, vscode.DiagnosticSeverity.Error);
    assert.match(problems[0]!.message, /Expected ";" but found "\)"/);
    const shown = await readWorkbench<string>(statusBarText, `(${statusBarText}).includes('worker: build failed, serving the previous build')`);
    assert.match(shown, /worker: build failed, serving the previous build/);
    await requestScreenshot('worker-build-failed', vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath);
    assert.equal(await (await fetch(url)).text(), 'built', 'the previous build still answers');

    fs.writeFileSync(entry, WORKER.replace("'built'", "'rebuilt'"));
    await until(
      () => vscode.languages.getDiagnostics(uri),
      (found) => found.length === 0,
      'the Problem stayed after the fix',
    );
    const after = await readWorkbench<string>(statusBarText, `!(${statusBarText}).includes('worker: build failed')`);
    assert.doesNotMatch(after, /worker: build failed/);
    assert.equal(await (await fetch(url)).text(), 'rebuilt');
  });
});
