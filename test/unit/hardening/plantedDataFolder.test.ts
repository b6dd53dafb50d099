// A data folder that came from somewhere else (a cloned repository, a shared drive) with links
// planted where Hookbench writes: the real `hookbench serve` refuses it in one line before it
// reads or writes anything, and the file the links point at is left exactly as it was. A line
// planted in the deliveries log is read back, validated and dropped.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { encodeName } from '../../../src/runtime/storage/names';
import { startServe } from '../helpers/serveProcess';
import { projectRoot } from '../helpers/serveWorker';
import { githubPush, SECRETS } from '../workers/payloads';

const ADMIN_TOKEN = 'admin-token-planted';
const ENV = { GITHUB_WEBHOOK_SECRET: SECRETS.GITHUB_WEBHOOK_SECRET, HOOKBENCH_ADMIN_TOKEN: ADMIN_TOKEN };

const temp = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `hb-planted-${name}-`));

/** A stand-in for the user's home: a file the planted links point at. */
interface Home {
  readonly dir: string;
  readonly victim: string;
  /** Asserts the home and the victim are as they were: bytes, mtime, mode, and nothing added. */
  assertUntouched(): void;
}

function makeHome(): Home {
  const dir = temp('home');
  const victim = path.join(dir, 'victim.txt');
  const content = Buffer.from('export PATH="$HOME/bin:$PATH"\n# the user’s own file\n');
  fs.writeFileSync(victim, content, { mode: 0o644 });
  // An mtime in the past, so a write in the same second as the test still changes it.
  fs.utimesSync(victim, new Date('2020-01-01T00:00:00Z'), new Date('2020-01-01T00:00:00Z'));
  const before = { file: fs.statSync(victim), dir: fs.statSync(dir), listing: fs.readdirSync(dir) };
  return {
    dir,
    victim,
    assertUntouched() {
      const now = fs.readFileSync(victim);
      assert.ok(now.equals(content), `victim.txt was written through the link: ${now.length} bytes, was ${content.length}`);
      const stat = fs.statSync(victim);
      assert.equal(stat.mtimeMs, before.file.mtimeMs, 'the victim’s mtime');
      assert.equal(stat.mode, before.file.mode, 'the victim’s mode');
      assert.deepEqual(fs.readdirSync(dir), before.listing, 'nothing was created beside it');
      assert.equal(fs.statSync(dir).mode, before.dir.mode, 'the home folder’s mode');
    },
  };
}

/**
 * Runs the real CLI on `data` until it exits. Should it start (it must not), it is sent a signed
 * webhook for `acme`, which writes through whatever link it followed, and then stopped.
 */
async function runServe(data: string): Promise<{ code: number | null; stderr: string; started: boolean }> {
  const cli = path.join(projectRoot(), 'dist', 'cli.js');
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--no-render', '--no-watch', '--data', data], {
    env: { ...process.env, ...ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let started = false;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
    if (!url || started) return;
    started = true;
    const push = githubPush('Acme/Planted', 'planted-1');
    void fetch(`${url}/webhooks/github/acme`, { method: 'POST', body: push.body, headers: push.headers })
      .catch(() => undefined)
      .finally(() => child.kill('SIGTERM'));
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, stderr, started };
}

/** Asserts serve refused the folder in one line naming `offending`, and never listened. */
function assertRefused(result: { code: number | null; stderr: string; started: boolean }, offending: string, reason: RegExp): void {
  assert.equal(result.started, false, `serve started on the planted folder:\n${result.stderr}`);
  assert.notEqual(result.code, 0);
  assert.notEqual(result.code, null);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, /refusing the data folder/);
  assert.ok(lines[0]!.includes(offending), `${lines[0]} names ${offending}`);
  assert.match(lines[0]!, reason);
}

/** A data folder a real serve wrote: one signed delivery to `acme`, then a clean stop. */
let recorded: string;
before(async () => {
  recorded = path.join(temp('recorded'), 'data');
  const serve = await startServe(['--data', recorded, '--no-render', '--no-watch'], ENV);
  try {
    const push = githubPush('Acme/Recorded', 'recorded-1');
    assert.equal((await fetch(`${serve.url}/webhooks/github/acme`, { method: 'POST', body: push.body, headers: push.headers })).status, 200);
  } finally {
    assert.equal(await serve.stop(), 0);
  }
});

/** A copy of the recorded folder to plant things in. */
function copyOfRecorded(): string {
  const data = path.join(temp('copy'), 'data');
  fs.cpSync(recorded, data, { recursive: true });
  return data;
}

describe('a data folder with planted links', () => {
  it('refuses a deliveries log that is a symlink to a file outside', async () => {
    const home = makeHome();
    const data = path.join(temp('deliveries'), 'data');
    fs.mkdirSync(path.join(data, '_hookbench', 'deliveries'), { recursive: true });
    const link = path.join(data, '_hookbench', 'deliveries', 'deliveries-00000001.ndjson');
    fs.symlinkSync(home.victim, link);
    const result = await runServe(data);
    home.assertUntouched();
    assertRefused(result, link, /is a symbolic link/);
  });

  it('refuses an instance journal that is a symlink to a file outside', async () => {
    const home = makeHome();
    const data = copyOfRecorded();
    const instance = path.join(data, encodeName('webhook-agent'), encodeName('acme'));
    const journals = fs
      .readdirSync(instance)
      .filter((f) => /^journal-\d+\.log$/.test(f))
      .sort();
    assert.ok(journals.length > 0, `a journal in ${fs.readdirSync(instance).join(', ')}`);
    // The newest generation: the one serve appends to when the instance wakes.
    const link = path.join(instance, journals.at(-1)!);
    fs.rmSync(link);
    fs.symlinkSync(home.victim, link);
    const result = await runServe(data);
    home.assertUntouched();
    assertRefused(result, link, /is a symbolic link/);
  });

  it('refuses a data folder that is itself a symlink', async () => {
    const home = makeHome();
    const link = path.join(temp('folder-link'), 'data');
    fs.symlinkSync(home.dir, link);
    const result = await runServe(link);
    home.assertUntouched();
    assertRefused(result, link, /is a symbolic link/);
  });

  it('refuses a deliveries log that is a hard link to a file outside', async () => {
    const home = makeHome();
    const data = path.join(temp('hardlink'), 'data');
    fs.mkdirSync(path.join(data, '_hookbench', 'deliveries'), { recursive: true });
    const link = path.join(data, '_hookbench', 'deliveries', 'deliveries-00000001.ndjson');
    fs.linkSync(home.victim, link);
    const result = await runServe(data);
    home.assertUntouched();
    assertRefused(result, link, /has 2 hard links/);
  });
});

describe('a line planted in the deliveries log', () => {
  it('is not listed when its method is not an HTTP token; the real line beside it is', async () => {
    const data = path.join(temp('planted-line'), 'data');
    const first = await startServe(['--data', data, '--no-render', '--no-watch'], ENV);
    let keep: string;
    let plant: string;
    try {
      for (const delivery of ['keep-1', 'plant-1']) {
        const push = githubPush('Acme/Lines', delivery);
        assert.equal((await fetch(`${first.url}/webhooks/github/acme`, { method: 'POST', body: push.body, headers: push.headers })).status, 200);
      }
      const listed = (await (await fetch(`${first.url}/__hookbench/deliveries`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
        deliveries: { id: string; requestHeaders: Record<string, string> }[];
      };
      const idOf = (delivery: string) => listed.deliveries.find((d) => Object.values(d.requestHeaders).includes(delivery))!.id;
      keep = idOf('keep-1');
      plant = idOf('plant-1');
    } finally {
      assert.equal(await first.stop(), 0);
    }

    // The recorded line of plant-1, with only its method changed.
    const folder = path.join(data, '_hookbench', 'deliveries');
    const files = fs.readdirSync(folder).filter((f) => /^deliveries-\d+\.ndjson$/.test(f));
    assert.equal(files.length, 1, files.join(', '));
    const file = path.join(folder, files[0]!);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const index = lines.findIndex((line) => line !== '' && (JSON.parse(line) as { id: string }).id === plant);
    assert.ok(index >= 0);
    const original = JSON.parse(lines[index]!) as Record<string, unknown>;
    assert.equal(original['method'], 'POST');
    const planted = { ...original, method: "POST'; touch /tmp/pwned; '" };
    lines[index] = JSON.stringify(planted);
    fs.writeFileSync(file, lines.join('\n'));
    const { method: _planted, ...plantedRest } = JSON.parse(lines[index]!) as Record<string, unknown>;
    const { method: _original, ...originalRest } = original;
    assert.deepEqual(plantedRest, originalRest, 'only the method differs');

    const second = await startServe(['--data', data, '--no-render', '--no-watch'], ENV);
    try {
      const response = await fetch(`${second.url}/__hookbench/deliveries`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const { deliveries } = (await response.json()) as { deliveries: { id: string; method: string }[] };
      const ids = deliveries.map((d) => d.id);
      assert.ok(ids.includes(keep), 'the real line is read back');
      assert.ok(!ids.includes(plant), 'the planted line is not');
      assert.deepEqual([...new Set(deliveries.map((d) => d.method))], ['POST']);
      assert.equal((await fetch(`${second.url}/__hookbench/deliveries/${plant}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 404);
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });
});
