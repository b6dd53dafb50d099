import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import type { ServeState } from '../../src/vscode/server/serveProcess';
import type { HookbenchApi } from '../../src/vscode/hookbench';

async function api(): Promise<HookbenchApi> {
  const ext = vscode.extensions.getExtension<HookbenchApi>('hookbench.hookbench')!;
  return ext.activate();
}

/** Resolves at the next time the receiver is running again after having stopped. */
function nextRestart(hookbench: HookbenchApi, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let stopped = false;
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error('the receiver did not restart'));
    }, timeoutMs);
    const sub = hookbench.server.onDidChangeState((state: ServeState) => {
      if (state.kind === 'stopped') stopped = true;
      if (state.kind === 'running' && stopped) {
        clearTimeout(timer);
        sub.dispose();
        resolve(state.url);
      }
    });
  });
}

function signedPush(secret: string, delivery: string) {
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'Acme/Integration' }, pusher: { name: 'zoe' }, commits: [] });
  const { headers } = schemeFor('github').sign({ secret, body: Buffer.from(body) });
  return { body, headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery } };
}

describe('Receiver', () => {
  it('starts on activation, on loopback, with the built-in worker', async () => {
    const hookbench = await api();
    const url = await hookbench.server.start();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/webhooks/github/acme`, { method: 'POST', body: '{}' });
    assert.equal(response.status, 401);
    assert.equal(await response.text(), 'Invalid signature');
  });

  it('passes secrets set through the command to the receiver, and never into settings', async () => {
    const hookbench = await api();
    await hookbench.server.start();
    const restarted = nextRestart(hookbench);
    await vscode.commands.executeCommand('hookbench.secret.set', 'GITHUB_WEBHOOK_SECRET', 'integration-secret');
    const url = await restarted;
    const push = signedPush('integration-secret', 'int-1');
    const response = await fetch(`${url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers });
    assert.equal(response.status, 200);
    assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('hookbench')).includes('integration-secret'));
    const instances = (await (await fetch(`${url}/__hookbench/instances`, { headers: { authorization: `Bearer ${hookbench.server.adminToken}` } })).json()) as { instances: { name: string }[] };
    assert.ok(instances.instances.some((i) => i.name === 'acme-integration'));
  });

  it('keeps every event across a stop and a start', async () => {
    const hookbench = await api();
    let url = await hookbench.server.start();
    const push = signedPush('integration-secret', 'int-2');
    assert.equal((await fetch(`${url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers })).status, 200);
    await vscode.commands.executeCommand('hookbench.receiver.stop');
    assert.equal(hookbench.server.state.kind, 'stopped');
    url = await hookbench.server.start();
    const details = (await (await fetch(`${url}/__hookbench/instances/webhook-agent/acme-integration`, { headers: { authorization: `Bearer ${hookbench.server.adminToken}` } })).json()) as { tables: { name: string; rows: number }[] };
    assert.equal(details.tables.find((t) => t.name === 'events')?.rows, 2);
  });

  it('refuses the admin API without the session token', async () => {
    const hookbench = await api();
    const url = await hookbench.server.start();
    assert.equal((await fetch(`${url}/__hookbench/instances`)).status, 401);
  });
});
