// `hookbench send --fixture` and `hookbench replay` as a CI job runs them: the built CLI against a
// real `hookbench serve` on loopback, fixtures saved from its deliveries, exit codes checked.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DeliveryDetails } from '../../../src/core/contract/admin';
import { parseFixture, serializeFixture, type Fixture } from '../../../src/core/contract/fixtures';
import { readAgentState } from '../../../src/core/fixtures/agentState';
import { fixtureFromDelivery } from '../../../src/core/fixtures/fromDelivery';
import { writeFixtureFile } from '../../../src/core/fixtures/fixtureFiles';
import { buildDelivery, findTemplate } from '../../../src/core/payloads';
import { schemeFor } from '../../../src/core/signing';
import { startServe, type ServeProcess } from '../helpers/serveProcess';
import { projectRoot } from '../helpers/serveWorker';

const SECRET = 'replay-suite-secret';
const TOKEN = 'replay-admin-token';
const ENV = { GITHUB_WEBHOOK_SECRET: SECRET, HOOKBENCH_ADMIN_TOKEN: TOKEN };
const CLI = path.join(projectRoot(), 'dist', 'cli.js');

function hookbench(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

let recorded: ServeProcess;
let fresh: ServeProcess;
let suite: string;

async function newestDelivery(base: string): Promise<DeliveryDetails> {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const list = (await (await fetch(`${base}/__hookbench/deliveries?limit=1`, { headers: auth })).json()) as { deliveries: { id: string }[] };
  return (await (await fetch(`${base}/__hookbench/deliveries/${encodeURIComponent(list.deliveries[0]!.id)}`, { headers: auth })).json()) as DeliveryDetails;
}

/** A GitHub push to `repo`, signed and POSTed as GitHub would. */
async function push(base: string, repo: string): Promise<number> {
  const delivery = buildDelivery(findTemplate('github', 'push')!, { entity: repo });
  const signed = schemeFor('github').sign({ secret: SECRET, body: delivery.body });
  const response = await fetch(`${base}/webhooks/github`, { method: 'POST', headers: { ...delivery.headers, ...signed.headers }, body: delivery.body });
  await response.arrayBuffer();
  return response.status;
}

before(async () => {
  recorded = await startServe(['--data', tempDir('hb-replay-a-'), '--no-render'], ENV);
  fresh = await startServe(['--data', tempDir('hb-replay-b-'), '--no-render'], ENV);
  const root = tempDir('hb-replay-suite-');
  suite = path.join(root, 'suite');
  // Two pushes to one repository; the second fixture records the state they left.
  assert.equal(await push(recorded.url, 'Acme/Suite'), 200);
  writeFixtureFile(root, suite, fixtureFromDelivery(await newestDelivery(recorded.url), { name: '01-push' }));
  assert.equal(await push(recorded.url, 'Acme/Suite'), 200);
  const state = await readAgentState(recorded.url, 'webhook-agent', 'acme-suite');
  writeFixtureFile(root, suite, fixtureFromDelivery(await newestDelivery(recorded.url), { name: '02-push', state, agent: 'webhook-agent' }));
});

after(async () => {
  await Promise.all([recorded?.stop(), fresh?.stop()]);
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const fixtureFile = (name: string) => path.join(suite, `${name}.json`);
const edit = (name: string, change: (f: Fixture & { expect: { status?: number; state?: { stats: { total: number } } } }) => void) => {
  const file = fixtureFile(name);
  const fixture = JSON.parse(fs.readFileSync(file, 'utf8'));
  change(fixture);
  fs.writeFileSync(file, serializeFixture(parseFixture(JSON.stringify(fixture), file)));
};

describe('hookbench send --fixture', () => {
  it('re-signs with the secret from the environment and is accepted with 200', () => {
    const sent = hookbench(['send', '--fixture', fixtureFile('01-push'), '--to', recorded.url, '--new-id'], ENV);
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, /^200 OK in [\d.]+ ms\nOK\n$/);
  });

  it('says which secret is missing, with exit 2, and sends nothing', () => {
    const sent = hookbench(['send', '--fixture', fixtureFile('01-push'), '--to', recorded.url], {});
    assert.equal(sent.code, 2);
    assert.match(sent.stderr, /GITHUB_WEBHOOK_SECRET/);
  });
});

describe('hookbench replay', () => {
  it('passes on a fresh receiver: statuses and the recorded state match', () => {
    const run = hookbench(['replay', suite, '--to', fresh.url, '--expect-state'], ENV);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.match(lines[0]!, /^ok {4}01-push\s+200 in \d+ ms, state not recorded$/);
    assert.match(lines[1]!, /^ok {4}02-push\s+200 in \d+ ms, state as expected$/);
    assert.equal(lines.at(-1), '2 fixtures: 2 passed, 0 failed');
  });

  it('fails with exit 1 and a short diff once an expectation is tampered with', () => {
    edit('02-push', (f) => (f.expect.state!.stats.total = 5));
    edit('01-push', (f) => (f.expect.status = 202));
    const run = hookbench(['replay', suite, '--to', fresh.url, '--expect-state'], ENV);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /^FAIL {2}01-push .*\n {6}status: expected 202, got 200 \(OK\)\n/);
    assert.match(run.stdout, /\nFAIL {2}02-push .*\n {6}state stats\.total: expected 5, got 2\n/);
    assert.match(run.stdout, /\n2 fixtures: 0 passed, 2 failed\n$/);
    // Without --expect-state only the status counts; --expect-status overrides every fixture's.
    const statusOnly = hookbench(['replay', suite, '--to', fresh.url, '--expect-status', '200'], ENV);
    assert.equal(statusOnly.code, 0, statusOnly.stdout);
  });

  it('refuses a broken fixture with exit 2 before sending anything, naming the file and field', () => {
    const broken = path.join(tempDir('hb-replay-broken-'), 'bad.json');
    fs.writeFileSync(broken, JSON.stringify({ ...JSON.parse(fs.readFileSync(fixtureFile('01-push'), 'utf8')), request: { path: 'http://elsewhere.test/' } }));
    const run = hookbench(['replay', fixtureFile('01-push'), broken, '--to', fresh.url], ENV);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /bad\.json: request\.path: must be a path/);
    assert.equal(run.stdout, '');
  });

  it('answers usage errors with exit 2', () => {
    assert.equal(hookbench(['replay'], ENV).code, 2);
    assert.equal(hookbench(['replay', suite, '--expect-status', 'ok'], ENV).code, 2);
    assert.equal(hookbench(['replay', suite, '--to', 'ftp://x'], ENV).code, 2);
    assert.equal(hookbench(['replay', suite, '--to', fresh.url], {}).code, 2);
  });
});
