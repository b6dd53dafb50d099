// A worker Hookbench cannot run is refused at start with one line, and serve exits, watching or not:
// the shape of cloudflare/agents examples that import an SDK module the emulation lacks, or that
// leave "assets.directory" to the Cloudflare Vite plugin.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { unemulatedCallMessage } from '../../../src/core/workerConfig/support';
import { parseLogLine } from '../../../src/core/log';
import { parseWorkerStatus } from '../../../src/core/contract/workerProblems';
import { projectRoot } from '../helpers/serveWorker';

/** Runs `hookbench serve` on `folder`'s worker and resolves with its exit code and stderr once it exits. */
function serveUntilExit(folder: string, args: string[]): Promise<{ code: number | string; stderr: string; stdout: string }> {
  const cli = path.join(projectRoot(), 'dist', 'cli.js');
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--no-render', '--data', path.join(folder, '.hookbench'), ...args], {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  // A serve that keeps running after its refusal fails the test by the runner's timeout: killed here so it never outlives it.
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => child.once('exit', (code, signal) => (clearTimeout(guard), resolve({ code: code ?? signal ?? -1, stderr, stdout }))));
}

/** What serve said for a person to read: its lines but the structured status the extension reads (contract/workerProblems.ts). */
function userLines(stderr: string): string[] {
  return stderr
    .trim()
    .split('\n')
    .filter((line) => !parseWorkerStatus(parseLogLine(line)?.message ?? ''));
}

function project(files: Record<string, string>): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-refusal-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
    fs.writeFileSync(path.join(folder, name), text);
  }
  return folder;
}

const config = (extra = '') =>
  `{ "name": "mail", "main": "src/server.ts", "compatibility_date": "2026-05-01", "durable_objects": { "bindings": [{ "name": "Inbox", "class_name": "Inbox" }] }${extra} }`;
const worker = [
  "import { Agent, routeAgentRequest } from 'agents';",
  "import { createAddressBasedEmailResolver } from 'agents/email';",
  'export class Inbox extends Agent { onRequest() { return new Response(String(typeof createAddressBasedEmailResolver)); } }',
  'export default { async fetch(request, env) { return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 }); } };',
].join('\n');

describe('a worker Hookbench cannot run', () => {
  for (const mode of [['--no-watch'], []]) {
    it(`importing an SDK module it does not emulate exits 1 with one line naming it, the alternative and the escape hatch (${mode.length ? 'no watch' : 'watching'})`, async () => {
      const folder = project({ 'wrangler.jsonc': config(), 'src/server.ts': worker });
      try {
        const { code, stderr, stdout } = await serveUntilExit(folder, ['--worker', 'src/server.ts', ...mode]);
        assert.equal(code, 1);
        assert.doesNotMatch(stdout, /listening on/);
        const lines = userLines(stderr);
        assert.equal(lines.length, 1, stderr);
        assert.match(
          lines[0]!,
          /^hookbench: the worker imports "agents\/email", which Hookbench does not emulate yet; nearest supported: .+; or run the worker under `wrangler dev` and attach the Hookbench explorer/,
        );
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  }

  it('with "assets" but no "directory" (a Vite plugin config) exits 1 with one line saying what to build', async () => {
    const folder = project({
      'wrangler.jsonc': config(', "assets": { "not_found_handling": "single-page-application" }'),
      'src/server.ts': worker.replace(/^.*agents\/email.*$/m, 'const createAddressBasedEmailResolver = 0;'),
    });
    try {
      const { code, stderr } = await serveUntilExit(folder, ['--worker', 'src/server.ts']);
      assert.equal(code, 1);
      assert.equal(userLines(stderr).length, 1, stderr);
      assert.match(
        stderr,
        /"assets" has no "directory" \(wrangler dev refuses this too: the Cloudflare Vite plugin fills it in from its build\); build the client/,
      );
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('calling an SDK method the emulated Agent lacks (addMcpServer) exits 1 at start with one line, not later with "is not a function"', async () => {
    const mcpWorker = [
      "import { Agent, callable, routeAgentRequest } from 'agents';",
      'export class Inbox extends Agent {',
      '  @callable() async addServer(name: string, url: string) { await this.addMcpServer(name, url); }',
      '}',
      'export default { async fetch(request, env) { return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 }); } };',
    ].join('\n');
    const folder = project({ 'wrangler.jsonc': config(), 'src/server.ts': mcpWorker });
    try {
      const { code, stderr } = await serveUntilExit(folder, ['--worker', 'src/server.ts']);
      assert.equal(code, 1);
      assert.equal(userLines(stderr).length, 1, stderr);
      assert.match(
        userLines(stderr)[0]!,
        /^hookbench: the worker calls addMcpServer\(\) \(the SDK's MCP client\), which Hookbench does not emulate yet; nearest supported: .+; or run the worker under `wrangler dev`/,
      );
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('names no method the emulation has: emulating one makes its refusal disappear', () => {
    const code = 'await this.runWorkflow("W", {});';
    assert.match(unemulatedCallMessage(code, () => false) ?? '', /calls runWorkflow\(\)/);
    assert.equal(
      unemulatedCallMessage(code, (method) => method === 'runWorkflow'),
      undefined,
    );
    assert.equal(
      unemulatedCallMessage('const runWorkflow = 1; // mentions addMcpServer', () => false),
      undefined,
    );
  });
});
