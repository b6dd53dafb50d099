// The walkthrough's steps tick when what they ask for is really done: the receiver runs, a secret is
// stored, a delivery arrived; read in the workbench as the user sees the checkboxes.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, withSecret } from './helpers';
import { readWorkbench } from './reporter';

const WALKTHROUGH = 'hookbench.hookbench#hookbench.gettingStarted';

/** Whether the walkthrough shows step `id` as done (its checkbox), once it does within 20 s. */
function stepTicked(id: string): Promise<boolean> {
  const box = `document.querySelector('[data-done-step-id$="#${id}"]')`;
  return readWorkbench<boolean>(`${box}?.getAttribute('aria-checked') === 'true'`, `${box}?.getAttribute('aria-checked') === 'true'`);
}

describe('Walkthrough', () => {
  it('ticks the receiver, secret and delivery steps once each is done', async () => {
    const hookbench = await api();
    const url = await withSecret(hookbench, 'GITHUB_WEBHOOK_SECRET', 'walkthrough-secret');
    // Any delivery ticks the step, signed or not (a rejected one is a delivery the user sees too).
    assert.equal((await fetch(`${url}/webhooks/github`, { method: 'POST', body: '{}' })).status, 401);
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    try {
      assert.deepEqual([await stepTicked('start'), await stepTicked('secret'), await stepTicked('send')], [true, true, true]);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
