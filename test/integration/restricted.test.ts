// Restricted mode: the workspace is an untrusted clone whose committed .hookbench/ holds links to a
// file of the user's (the launcher plants them, and a .vscode/settings.json that asks for
// auto-start on that folder). Nothing from the workspace may be executed or written through.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { schemeFor } from '../../src/core/signing';
import type { DeliverySummary } from '../../src/core/contract/deliveries';
import { adminClient, api, startReceiver } from './helpers';
import { rowsUnder, untilRows } from './treeViews';

const victim = process.env['HOOKBENCH_TEST_VICTIM']!;
const workspace = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;

/** Every entry under a folder, links listed as links, with their targets. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const full = path.join(d, name);
      const stat = fs.lstatSync(full);
      if (stat.isSymbolicLink()) out.push(`${full} -> ${fs.readlinkSync(full)}`);
      else if (stat.isDirectory()) walk(full);
      else out.push(`${full} ${stat.size}`);
    }
  };
  walk(dir);
  return out;
}

describe('Restricted mode (an untrusted clone with a planted .hookbench/)', () => {
  let original: { victim: Buffer; mtimeMs: number; planted: string[] };

  before(() => {
    assert.ok(victim, "the launcher names the planted links' target");
    original = { victim: fs.readFileSync(victim), mtimeMs: fs.statSync(victim).mtimeMs, planted: listing(path.join(workspace(), '.hookbench')) };
  });

  it('runs in an untrusted workspace', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('does not start the receiver on its own, and says why in the log', async () => {
    const hookbench = await api();
    assert.equal(hookbench.receiver.state.kind, 'stopped');
    assert.ok(
      hookbench.recentLog().some((line) => /restricted mode: the receiver does not start on its own/.test(line)),
      'the log explains the restricted start',
    );
  });

  it("ignores the workspace's data folder: data goes to VS Code's storage", async () => {
    const hookbench = await api();
    const data = hookbench.receiver.dataFolder;
    assert.ok(!data.startsWith(workspace() + path.sep), `${data} is outside the workspace`);
  });

  it('opening the views and starting the receiver write nothing through the planted links', async () => {
    await api();
    await vscode.commands.executeCommand('workbench.view.extension.hookbench');
    await vscode.commands.executeCommand('hookbench.secret.set', 'GITHUB_WEBHOOK_SECRET', 'restricted-secret');
    const url = await startReceiver();
    const body = JSON.stringify({ repository: { full_name: 'acme/widgets' }, ref: 'refs/heads/main', commits: [] });
    const { headers } = schemeFor('github').sign({ secret: 'restricted-secret', body: Buffer.from(body) });
    const response = await fetch(`${url}/webhooks/github`, {
      method: 'POST',
      body,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': 'restricted-1',
        'x-note': '$(touch /tmp/hookbench-pwned)',
      },
    });
    assert.equal(response.status, 200);
    // Expanding every row of the Agents view wakes every instance the explorer knows of: the planted one must not be among them.
    await untilRows('Agents', [], (roots) => roots.length > 0);
    await untilRows('Agents', ['webhook-agent'], (rows) => rows.some((row) => row.label === 'acme-widgets'));
    const names: string[] = [];
    for (const namespace of await rowsUnder('Agents')) {
      for (const instance of await rowsUnder('Agents', [namespace.label])) {
        names.push(instance.label);
        await rowsUnder('Agents', [namespace.label, instance.label]);
      }
    }
    assert.deepEqual(names, ['acme-widgets']);
    await vscode.commands.executeCommand('hookbench.receiver.stop');
    assert.deepEqual(fs.readFileSync(victim), original.victim, 'the linked file is byte for byte what it was');
    assert.equal(fs.statSync(victim).mtimeMs, original.mtimeMs);
    assert.deepEqual(listing(path.join(workspace(), '.hookbench')), original.planted, 'the committed .hookbench/ is untouched');
  });

  it("saves fixtures in VS Code's storage for the workspace, never in its .hookbench/", async () => {
    const hookbench = await api();
    await vscode.commands.executeCommand('hookbench.secret.set', 'GITHUB_WEBHOOK_SECRET', 'restricted-secret');
    const url = await startReceiver();
    try {
      const body = JSON.stringify({ repository: { full_name: 'acme/fixtures' }, ref: 'refs/heads/main', commits: [] });
      const { headers } = schemeFor('github').sign({ secret: 'restricted-secret', body: Buffer.from(body) });
      const response = await fetch(`${url}/webhooks/github`, {
        method: 'POST',
        body,
        headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'restricted-fixture-1' },
      });
      assert.equal(response.status, 200);
      // The delivery as the receiver logged it (what the Deliveries view's item holds), once the view shows it.
      await untilRows('Deliveries', [], (rows) => rows.some((row) => row.label === 'push · acme-fixtures'));
      const list = (await (await adminClient(hookbench)).deliveries(200)).filter((d: DeliverySummary) => d.entity === 'acme-fixtures');
      assert.equal(list.length, 1);
      const [received] = list;
      const written = await vscode.commands.executeCommand<string[]>('hookbench.delivery.saveFixture', received, [received], { name: 'restricted-push' });
      assert.equal(written.length, 1);
      assert.equal(path.basename(written[0]!), 'restricted-push.json');
      assert.ok(!written[0]!.startsWith(workspace() + path.sep), `${written[0]} is outside the workspace`);
      assert.equal(path.dirname(path.dirname(written[0]!)), path.dirname(hookbench.receiver.dataFolder), 'beside the private data folder');
      assert.ok(
        hookbench.recentLog().some((line) => /restricted mode: the workspace is not trusted, so fixtures are saved in VS Code's storage/.test(line)),
        'the log says where',
      );
    } finally {
      await vscode.commands.executeCommand('hookbench.receiver.stop');
    }
    assert.deepEqual(listing(path.join(workspace(), '.hookbench')), original.planted, 'the committed .hookbench/ is untouched');
    assert.deepEqual(fs.readFileSync(victim), original.victim);
  });
});
