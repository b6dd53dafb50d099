// The settings turned into serve's flags, and the worker a workspace runs: its own agents worker
// when trusted and it has one, the built-in worker otherwise (src/vscode/receiver/serveFlags.ts).
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { serveArgs, workerFlags, workspaceWorker, type Settings } from '../../../../src/vscode/receiver/serveFlags';

/** The `hookbench` settings as a user set them; the rest at their defaults. */
const settings = (set: Record<string, unknown> = {}): Settings => ({ get: <T>(key: string, fallback: T) => (key in set ? (set[key] as T) : fallback) });

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })));

function workspace(files: Record<string, string>): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-serve-flags-'));
  folders.push(folder);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(folder, name), text);
  return folder;
}

const agentsConfig =
  '{ "name": "mail", "main": "src/server.ts", "compatibility_date": "2026-05-01", "durable_objects": { "bindings": [{ "name": "Inbox", "class_name": "Inbox" }] } }';

describe('serve’s flags from the settings', () => {
  it('passes the receiver’s settings, the data folder, then the worker’s flags', () => {
    const args = serveArgs(settings({ 'receiver.port': 9000, 'security.allowedOrigins': ['https://a.test'], 'receiver.retries': true }), '/data', [
      '--worker',
      'w.ts',
    ]);
    assert.deepEqual(args.slice(0, 6), ['--host', '127.0.0.1', '--port', '9000', '--data', '/data']);
    assert.deepEqual(args.slice(args.indexOf('--worker'), args.indexOf('--worker') + 2), ['--worker', 'w.ts']);
    assert.deepEqual(args.slice(-5), ['--allow-origin', 'https://a.test', '--retries', '--retry-scale', '0.001']);
    assert.equal(args.includes('--require-token'), false);
  });

  it('runs the workspace’s agents worker from its wrangler config when the folder is trusted', () => {
    const folder = workspace({ 'wrangler.jsonc': agentsConfig });
    const chosen = workspaceWorker(folder, true, () => settings());
    assert.equal(chosen.config, path.join(folder, 'wrangler.jsonc'));
    assert.ok(chosen.worker?.endsWith(path.join('src', 'server.ts')), chosen.worker);
    assert.deepEqual(workerFlags(chosen).flags, ['--config', chosen.config, '--worker', chosen.worker]);
  });

  it('runs the built-in worker in an untrusted folder, without reading its settings', () => {
    const folder = workspace({ 'wrangler.jsonc': agentsConfig });
    const chosen = workspaceWorker(folder, false, () => assert.fail('the settings of an untrusted folder are not read'));
    assert.deepEqual([chosen, workerFlags(chosen).flags], [{}, []]);
  });

  it('runs the entry the settings name, with the config beside it', () => {
    const folder = workspace({ 'wrangler.jsonc': '{ "name": "plain", "compatibility_date": "2026-05-01" }' });
    const chosen = workspaceWorker(folder, true, () => settings({ 'worker.entry': 'src/agent.ts' }));
    assert.deepEqual(chosen, { worker: path.join(folder, 'src', 'agent.ts'), config: path.join(folder, 'wrangler.jsonc') });
  });

  it('passes over a config it cannot read, and says why', () => {
    const folder = workspace({ 'wrangler.jsonc': '{ "name": ' });
    const chosen = workspaceWorker(folder, true, () => settings());
    assert.equal(chosen.worker, undefined);
    assert.match(chosen.ignored ?? '', /^ignoring .*wrangler\.jsonc: /);
  });
});
