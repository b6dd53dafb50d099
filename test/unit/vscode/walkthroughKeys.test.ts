// The walkthrough's context keys (src/vscode/walkthroughKeys.ts): each said to the window when it
// changes, not at every event that keeps it true (a delivery under load is hundreds a second).
import { vscodeShim } from '../helpers/vscodeShim';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DisposableStore, Emitter } from '../../../src/core/events';
import type { LiveMessage } from '../../../src/core/contract/live';

describe('the walkthrough keys', () => {
  it('says hasDelivery once for many deliveries, and hasSecret again each time it changes', async () => {
    const calls: unknown[][] = [];
    Object.assign(vscodeShim.commands, { executeCommand: async (...args: unknown[]) => void calls.push(args) });
    const { trackWalkthrough } = await import('../../../src/vscode/walkthroughKeys');
    const live = new Emitter<LiveMessage>();
    const secretsChanged = new Emitter<void>();
    let stored: Record<string, string> = {};
    const store = new DisposableStore();
    trackWalkthrough(store, {
      secrets: { asEnvironment: async () => stored, onDidChange: secretsChanged.event } as never,
      explorer: { onLive: live.event } as never,
      receiverRunning: new Emitter<boolean>().event,
      receiverRunningNow: false,
      exposed: new Emitter<boolean>().event,
    });
    for (let i = 0; i < 100; i++) live.fire({ type: 'delivery', delivery: {} } as never);
    const keys = (key: string) => calls.filter(([command, name]) => command === 'setContext' && name === key).map(([, , value]) => value);
    assert.deepEqual(keys('hookbench.hasDelivery'), [true]);
    assert.equal(calls.filter(([command]) => command === 'welcome.markStepComplete').length, 1);
    await new Promise((resolve) => setImmediate(resolve));
    stored = { GITHUB_WEBHOOK_SECRET: 'x' };
    secretsChanged.fire();
    await new Promise((resolve) => setImmediate(resolve));
    stored = {};
    secretsChanged.fire();
    await new Promise((resolve) => setImmediate(resolve));
    stored = { GITHUB_WEBHOOK_SECRET: 'y' };
    secretsChanged.fire();
    secretsChanged.fire();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(keys('hookbench.hasSecret'), [false, true, false, true]);
    store.dispose();
  });
});
