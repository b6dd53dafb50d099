// A wrangler config added to the workspace, edited, then removed, in the real workbench: serve
// reads its config and .dev.vars at start only, so the receiver restarts and runs what the
// workspace now asks for, as wrangler dev does (src/vscode/receiver/serverController.ts).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, nextRestart, startReceiver, type HookbenchApi } from './helpers';

const extensionRoot = () => vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath;
const config = (greeting: string) =>
  JSON.stringify(
    {
      name: 'counter',
      main: 'counter/src/index.ts',
      compatibility_date: '2025-06-01',
      durable_objects: { bindings: [{ name: 'COUNTER_AGENT', class_name: 'CounterAgent' }] },
      vars: { GREETING: greeting },
    },
    null,
    2,
  );

describe('the workspace worker: a wrangler config added, edited and removed', () => {
  let hookbench: HookbenchApi;
  let root: string;
  const file = () => path.join(root, 'wrangler.jsonc');
  const greeting = async (url: string) => {
    const response = await fetch(`${url}/agents/counter-agent/acme`);
    return response.ok ? ((await response.json()) as { greeting?: string }).greeting : `HTTP ${response.status}`;
  };

  before(async function () {
    this.timeout(60_000);
    hookbench = await api();
    await startReceiver();
    root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    fs.cpSync(path.join(extensionRoot(), 'test', 'fixtures', 'workers', 'counter', 'src'), path.join(root, 'counter', 'src'), { recursive: true });
  });

  after(async function () {
    this.timeout(60_000);
    if (fs.existsSync(file())) {
      const restarted = nextRestart(hookbench, 45_000);
      fs.rmSync(file());
      await restarted;
    }
    fs.rmSync(path.join(root, 'counter'), { recursive: true, force: true });
  });

  it('runs the config once it is written, again once edited, and the built-in worker once it is gone', async function () {
    this.timeout(150_000);
    let restarted = nextRestart(hookbench, 45_000);
    fs.writeFileSync(file(), config('hello'));
    let url = await restarted;
    assert.equal(await greeting(url), 'hello');

    restarted = nextRestart(hookbench, 45_000);
    fs.writeFileSync(file(), config('hi again'));
    url = await restarted;
    assert.equal(await greeting(url), 'hi again');
    assert.ok(
      hookbench.recentLog().some((line) => /restarting the receiver: wrangler\.jsonc changed/.test(line)),
      'the log says why',
    );

    restarted = nextRestart(hookbench, 45_000);
    fs.rmSync(file());
    url = await restarted;
    assert.notEqual(await greeting(url), 'hi again', 'the built-in worker runs again');
    assert.ok(hookbench.recentLog().some((line) => /restarting the receiver: the workspace's worker changed \(wrangler\.jsonc\)/.test(line)));
  });
});
