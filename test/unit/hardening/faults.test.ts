// Fault injection against `hookbench serve` as a real process: SIGKILL at random points of write
// bursts (HOOKBENCH_FAULT_ROUNDS rounds: 8 in `npm test` and CI, where 100 would take about four
// minutes of the shared 2 cores; 100 in `npm run bench -- hardening`), a power loss after one, and
// a full disk. Whatever happens, every delivery that was answered 200 is there after a restart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { rng } from '../helpers/hostile';
import { startServe, type ServeProcess } from '../helpers/serveProcess';
import { githubPush, SECRETS } from '../workers/payloads';

const ROUNDS = Number(process.env['HOOKBENCH_FAULT_ROUNDS'] ?? 8);
const SEED = Number(process.env['HOOKBENCH_FAULT_SEED'] ?? Date.now() % 1_000_000);
const TOKEN = 'fault-admin-token';
const ENTITIES = 5;
const args = (data: string) => ['--data', data, '--no-watch', '--no-render', '--retention-count', '0', '--retention-days', '0', '--admin-token', TOKEN];

/** The delivery ids stored for each entity, read through the admin API. */
async function storedIds(serve: ServeProcess): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let e = 0; e < ENTITIES; e++) {
    const response = await fetch(`${serve.url}/__hookbench/instances/webhook-agent/faults-e${e}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ sql: 'SELECT id FROM events' }),
    });
    if (response.status === 404) continue;
    assert.equal(response.status, 200, await response.clone().text());
    for (const [id] of ((await response.json()) as { rows: [string][] }).rows) ids.add(id);
  }
  return ids;
}

/** Fires `count` signed pushes over ENTITIES entities at once; resolves with the ids answered 200. */
function burst(serve: ServeProcess, tag: string, count: number, onAck: (acked: number) => void): Promise<string[]> {
  const acked: string[] = [];
  return Promise.all(
    Array.from({ length: count }, (_, i) => {
      const id = `${tag}-${i}`;
      const push = githubPush(`Faults/E${i % ENTITIES}`, id);
      return fetch(`${serve.url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers })
        .then(async (response) => {
          await response.arrayBuffer();
          if (response.status === 200) {
            acked.push(id);
            onAck(acked.length);
          }
        })
        .catch(() => undefined);
    }),
  ).then(() => acked);
}

describe(`fault injection (seed ${SEED})`, () => {
  it(`SIGKILL at random points of write bursts, ${ROUNDS} rounds: every acknowledged delivery survives`, async () => {
    const random = rng(SEED);
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-faults-'));
    const acknowledged = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const serve = await startServe(args(data), SECRETS);
      const killAt = 1 + Math.floor(random() * 120);
      let killed: Promise<unknown> | undefined;
      const acked = await burst(serve, `r${round}`, 160, (n) => {
        if (n === killAt) killed = serve.stop('SIGKILL');
      });
      await (killed ?? serve.stop('SIGKILL'));
      for (const id of acked) acknowledged.add(id);

      const check = await startServe(args(data), SECRETS);
      try {
        const stored = await storedIds(check);
        const missing = [...acknowledged].filter((id) => !stored.has(id));
        assert.deepEqual(missing, [], `seed ${SEED} round ${round}: acknowledged but missing after SIGKILL at ack ${killAt}`);
      } finally {
        await check.stop('SIGKILL');
      }
    }
    assert.ok(acknowledged.size > ROUNDS, `only ${acknowledged.size} deliveries were acknowledged`);
  });

  it('a power loss right after a SIGKILL (every journal loses what no sync covered): every acknowledged delivery survives', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-power-'));
    const serve = await startServe(args(data), SECRETS);
    const acked = await burst(serve, 'power', 100, () => undefined);
    await serve.stop('SIGKILL');
    // Nothing syncs a journal while its instance is open (the shared log does the syncing), so a
    // power loss may leave every one of them empty.
    const journals = fs.readdirSync(data, { recursive: true, encoding: 'utf8' }).filter((f) => /(^|\/)journal-\d+\.log$/.test(f));
    assert.ok(journals.length >= ENTITIES, `journals: ${journals.join(', ')}`);
    for (const journal of journals) fs.truncateSync(path.join(data, journal), 0);

    const check = await startServe(args(data), SECRETS);
    try {
      const stored = await storedIds(check);
      assert.ok(acked.length > 50, `${acked.length} acknowledged`);
      assert.deepEqual(
        acked.filter((id) => !stored.has(id)),
        [],
        'acknowledged but missing after the power loss',
      );
    } finally {
      await check.stop('SIGKILL');
    }
  });

  const root = process.getuid?.() === 0;
  it(
    'a full disk answers 503 with a clear error, loses nothing acknowledged, and recovers once there is room',
    { skip: root ? false : 'mounting a size-limited tmpfs needs root' },
    async () => {
      const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-full-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount]);
      try {
        const data = path.join(mount, 'data');
        const serve = await startServe(args(data), SECRETS);
        const acknowledged: string[] = [];
        const failures: { status: number; body: string }[] = [];
        for (let i = 0; i < 2000 && failures.length < 20; i++) {
          const id = `full-${i}`;
          const push = githubPush(`Faults/E${i % ENTITIES}`, id);
          const response = await fetch(`${serve.url}/webhooks/github`, { method: 'POST', body: push.body, headers: push.headers }).catch(() => undefined);
          if (!response) break;
          const body = await response.text();
          if (response.status === 200) acknowledged.push(id);
          else failures.push({ status: response.status, body });
        }
        assert.ok(acknowledged.length > 10, `${acknowledged.length} acknowledged before the disk filled`);
        assert.ok(failures.length > 0, 'the disk never filled');
        for (const failure of failures) {
          assert.equal(failure.status, 503, JSON.stringify(failure));
          assert.match(failure.body, /disk is full|no space/i);
        }
        assert.match(serve.stderr(), /ENOSPC/);

        // Room again: the same process takes writes again, every entity reopened from what is durable.
        execFileSync('mount', ['-o', 'remount,size=16m', mount]);
        for (let e = 0; e < ENTITIES; e++) {
          const after = githubPush(`Faults/E${e}`, `after-room-${e}`);
          const response = await fetch(`${serve.url}/webhooks/github`, { method: 'POST', body: after.body, headers: after.headers });
          assert.equal(response.status, 200, await response.text());
          acknowledged.push(`after-room-${e}`);
        }
        await serve.stop('SIGKILL');

        const check = await startServe(args(data), SECRETS);
        try {
          const stored = await storedIds(check);
          assert.deepEqual(
            acknowledged.filter((id) => !stored.has(id)),
            [],
            'acknowledged but missing after the disk filled',
          );
        } finally {
          await check.stop('SIGKILL');
        }
      } finally {
        execFileSync('umount', ['-l', mount]);
      }
    },
  );
});
