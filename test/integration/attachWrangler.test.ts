// The escape hatch every refusal names: a worker Hookbench cannot run goes under the real local
// runtime (wrangler dev, the differential suite's oracle) and the explorer attaches to its
// http://127.0.0.1:<port> URL. The worker is the webhook-dashboard area's (test/differential).
import * as assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { scratchFolder, startOracle, type RunningRuntime } from '../differential/runtimes';
import { api } from './helpers';
import { rowInline, shownUnder, untilRows } from './treeViews';

/** The oracle the launcher installed (scripts/lib/setup.mjs ensureWrangler) and passed on. */
function oracleTools(): { wrangler: string; modules: string } {
  const wrangler = process.env['HOOKBENCH_TEST_WRANGLER'];
  const modules = process.env['HOOKBENCH_TEST_ORACLE_MODULES'];
  if (!wrangler || !modules)
    throw new Error(
      'HOOKBENCH_TEST_WRANGLER and HOOKBENCH_TEST_ORACLE_MODULES are unset: run the suite through scripts/testVscodeWeb.mjs, which installs wrangler dev',
    );
  return { wrangler, modules };
}

/** A copy of the area's folder that wrangler may write into, with the oracle's node_modules (the real `agents`). */
function workerFolder(scratch: string, modules: string): string {
  const extension = vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath;
  const folder = path.join(scratch, 'worker');
  fs.cpSync(path.join(extension, 'test', 'differential', 'areas', 'webhook-dashboard'), folder, { recursive: true });
  fs.symlinkSync(modules, path.join(folder, 'node_modules'), 'dir');
  fs.writeFileSync(
    path.join(folder, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ES2022', moduleResolution: 'bundler', strict: true } }),
  );
  return folder;
}

async function deliver(origin: string, kind: string, payload: Record<string, unknown>): Promise<Response> {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', 'dashboard-secret').update(body).digest('hex')}`;
  return fetch(`${origin}/hooks/Acme/Widgets`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-feed-kind': kind, 'x-feed-signature': signature },
  });
}

describe('attach to wrangler dev', function () {
  this.timeout(120_000);
  let oracle: RunningRuntime | undefined;
  let scratch = '';

  after(async () => {
    await oracle?.stop();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('shows an agent that runs under wrangler dev: its state live, its events through its callable', async () => {
    const { wrangler, modules } = oracleTools();
    scratch = scratchFolder('attach-wrangler');
    const folder = workerFolder(scratch, modules);
    oracle = await startOracle(wrangler, {
      folder,
      config: path.join(folder, 'wrangler.jsonc'),
      entry: path.join(folder, 'worker', 'index.ts'),
      flags: [],
      scratch,
    });
    assert.match(oracle.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    const now = new Date().toISOString();
    assert.equal((await deliver(oracle.origin, 'push', { id: 'w1', title: 'Pushed 2 commits', at: now })).status, 200);

    await api();
    await vscode.commands.executeCommand('hookbench.worker.attach', { baseUrl: oracle.origin, agent: 'feed-agent', names: ['acme-widgets'] });
    // The Agents view: a root named by the worker's host, its entity under it, live.
    const host = new URL(oracle.origin).host;
    const roots = await untilRows('Agents', [], (rows) => rows.some((row) => row.label === host));
    assert.ok(
      roots.some((row) => row.label === host),
      'the wrangler dev worker is a root of the Agents view',
    );
    const [remote] = await shownUnder('Agents', [host]);
    assert.equal(remote?.label, 'acme-widgets');
    await untilRows('Agents', [host], (rows) => /^push · .+ · 1 total$/.test(rows[0]?.description ?? ''));

    // A delivery after attaching arrives as the agent's state broadcast, with no reload.
    assert.equal(
      (await deliver(oracle.origin, 'issues', { id: 'w2', action: 'opened', title: 'Widget wobbles', at: new Date(Date.now() + 1000).toISOString() })).status,
      200,
    );
    await untilRows('Agents', [host], (rows) => /^issues · .+ · 2 total$/.test(rows[0]?.description ?? ''));

    // Each event's label ends with its title.
    const rows = await untilRows('Agents', [host, 'acme-widgets', 'Events'], (events) => events.length >= 2);
    assert.deepEqual(
      rows.map((row) => row.label.split(' · ').at(-1)),
      ['Widget wobbles', 'Pushed 2 commits'],
    );

    await rowInline('Agents', [host], 'Detach Deployed Worker');
    await untilRows('Agents', [], (rows) => !rows.some((row) => row.label === host));
  });
});
