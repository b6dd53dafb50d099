import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { HookbenchApi } from '../../src/vscode/hookbench';
import { reportFigure } from './reporter';

const EXTENSION_ID = 'hookbench.hookbench';

async function activated(): Promise<{ ext: vscode.Extension<HookbenchApi>; api: HookbenchApi }> {
  const ext = vscode.extensions.getExtension<HookbenchApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
  const api = await ext.activate();
  return { ext, api };
}

describe('Activation', () => {
  it('activates and hands back its API', async () => {
    const { ext, api } = await activated();
    assert.equal(ext.isActive, true);
    assert.equal(typeof api.logger.info, 'function');
  });

  it('registers every command its manifest contributes', async () => {
    const { ext } = await activated();
    const contributed: { command: string }[] = ext.packageJSON.contributes.commands;
    assert.ok(contributed.length > 0);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.map((c) => c.command).filter((id) => !registered.has(id));
    assert.deepEqual(missing, []);
  });

  it('shows the Hookbench container with its Agents, Bindings, Deliveries and Outbound views', async () => {
    const { ext, api } = await activated();
    const declared: { id: string; name: string }[] = ext.packageJSON.contributes.views.hookbench;
    assert.deepEqual(
      declared.map((v) => v.name),
      ['Agents', 'Bindings', 'Deliveries', 'Outbound'],
    );
    await vscode.commands.executeCommand('workbench.view.extension.hookbench');
    for (const { id } of declared) {
      await vscode.commands.executeCommand(`${id}.focus`);
      const view = api.views[id as keyof HookbenchApi['views']];
      assert.ok(view, `view ${id} is created`);
      await becomesVisible(view, id);
    }
  });

  it('opens its walkthrough', async () => {
    await activated();
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'hookbench.hookbench#hookbench.gettingStarted', false);
  });

  it('reports how long activation and the receiver start take', async () => {
    const { api } = await activated();
    reportFigure('activation', `${api.timings.activationMs.toFixed(1)} ms`);
    reportFigure('evaluating the bundle before activate()', `${api.timings.loadMs.toFixed(1)} ms`);
    reportFigure('activation including the bundle', `${(api.timings.loadMs + api.timings.activationMs).toFixed(1)} ms`);
    reportFigure('activation to receiver listening', `${(await api.timings.receiverReadyMs).toFixed(0)} ms`);
  });

  it('opens the Hookbench log', async () => {
    await activated();
    await vscode.commands.executeCommand('hookbench.showLog');
  });
});

/** Resolves once the view is visible; views report it through `onDidChangeVisibility`. */
function becomesVisible(view: vscode.TreeView<unknown>, id: string, timeoutMs = 10_000): Promise<void> {
  if (view.visible) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`view ${id} did not become visible within ${timeoutMs} ms`));
    }, timeoutMs);
    const sub = view.onDidChangeVisibility(({ visible }) => {
      if (!visible) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
}
