// `hookbench serve` as a user runs it: the SDK's own AgentClient, SIGTERM, SIGKILL mid-burst.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import type * as AgentClientModule from 'agents/client';
import { startServe, type ServeProcess } from '../helpers/serveProcess';
import { projectRoot } from '../helpers/serveWorker';

const counter = () => path.join(projectRoot(), 'test', 'fixtures', 'workers', 'counter', 'src', 'index.ts');
const tempData = () => fs.mkdtempSync(path.join(os.tmpdir(), 'hb-serve-'));
const running: ServeProcess[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.stop('SIGKILL')));
});

async function serve(args: string[]): Promise<ServeProcess> {
  const process = await startServe(args);
  running.push(process);
  return process;
}

describe('the agents SDK client (AgentClient from the npm package) against hookbench serve', () => {
  it('gets ready with the state, calls, streams, sees errors, and receives broadcasts', async () => {
    const server = await serve(['--worker', counter(), '--data', tempData(), '--no-watch']);
    const { AgentClient } = (await import('agents/client')) as typeof AgentClientModule;
    const host = new URL(server.url).host;
    const updates: unknown[] = [];
    const client = new AgentClient({
      agent: 'counter-agent',
      name: 'sdk-room',
      host,
      protocol: 'ws',
      WebSocket: WebSocket as never,
      onStateUpdate: (state: unknown, source: string) => updates.push([state, source]),
    });
    // The watcher's state updates as an event: `stateSeen` looks at each one.
    let stateSeen = (): void => undefined;
    const watcher = new AgentClient({
      agent: 'counter-agent',
      name: 'sdk-room',
      host,
      protocol: 'ws',
      WebSocket: WebSocket as never,
      onStateUpdate: () => stateSeen(),
    });
    try {
      await client.ready;
      await watcher.ready;
      assert.deepEqual(client.state, { count: 0, lastBy: null });
      assert.equal(await client.call('add', [5]), 5);
      assert.equal(await (client.stub as unknown as { add(n: number): Promise<number> }).add(2), 7);
      const chunks: unknown[] = [];
      let done: unknown;
      const final = await client.call('countTo', [3], { onChunk: (c: unknown) => chunks.push(c), onDone: (d: unknown) => (done = d) });
      assert.deepEqual(chunks, [{ i: 1 }, { i: 2 }]);
      assert.deepEqual(done, { done: 3 });
      assert.deepEqual(final, { done: 3 });
      await assert.rejects(client.call('nope', []), /Method nope does not exist/);
      await assert.rejects(client.call('notCallable', []), /Method notCallable is not callable/);
      await assert.rejects(client.call('fail', []), /intentional failure/);
      // A webhook-style POST changes state; both clients hear about it.
      const response = await fetch(`${server.url}/agents/counter-agent/sdk-room`, { method: 'POST', body: 'bob' });
      assert.equal(await response.text(), '8');
      await new Promise<void>((resolve) => {
        // Bounded: a broadcast that never comes fails the assertion below instead of hanging.
        const timer = setTimeout(resolve, 10_000);
        stateSeen = () => {
          if ((watcher.state as { count: number } | undefined)?.count !== 8) return;
          clearTimeout(timer);
          resolve();
        };
        stateSeen();
      });
      assert.deepEqual(watcher.state, { count: 8, lastBy: 'bob' });
      assert.deepEqual(updates[0], [{ count: 0, lastBy: null }, 'server']);
    } finally {
      client.close();
      watcher.close();
    }
  });
});

describe('shutdown and crashes', () => {
  it('SIGTERM drains, commits and exits 0; everything is there after a restart', async () => {
    const data = tempData();
    const first = await serve(['--worker', counter(), '--data', data, '--no-watch']);
    for (let i = 0; i < 20; i++) assert.equal((await fetch(`${first.url}/agents/counter-agent/term`, { method: 'POST', body: `p${i}` })).status, 200);
    assert.equal(await first.stop('SIGTERM'), 0);
    const second = await serve(['--worker', counter(), '--data', data, '--no-watch']);
    const info = (await (await fetch(`${second.url}/agents/counter-agent/term`)).json()) as { hits: number; state: { count: number } };
    assert.equal(info.hits, 20);
    assert.equal(info.state.count, 20);
  });

  it('after SIGKILL during a burst of writes, every request that got a 2xx is there', async () => {
    const data = tempData();
    let totalAcknowledged = 0;
    for (let round = 0; round < 3; round++) {
      const server = await serve(['--worker', counter(), '--data', data, '--no-watch']);
      const acknowledged: string[] = [];
      const killAfter = 50 + round * 60;
      let killed: Promise<unknown> | undefined;
      const burst = Array.from({ length: 400 }, (_, i) => {
        const who = `r${round}-${i}`;
        const entity = `crash-${i % 7}`;
        return fetch(`${server.url}/agents/counter-agent/${entity}`, { method: 'POST', body: who })
          .then((r) => {
            if (!r.ok || killed) return;
            acknowledged.push(`${entity}/${who}`);
            // Kill in the middle of the burst, with many writes still in flight.
            if (acknowledged.length === killAfter) killed = server.stop('SIGKILL');
          })
          .catch(() => undefined);
      });
      await Promise.all(burst);
      await (killed ?? server.stop('SIGKILL'));
      const restarted = await serve(['--worker', counter(), '--data', data, '--no-watch']);
      totalAcknowledged += acknowledged.length;
      for (let e = 0; e < 7; e++) {
        const entity = `crash-${e}`;
        const info = (await (await fetch(`${restarted.url}/agents/counter-agent/${entity}?list`)).json()) as { who: string[]; state: { count: number } };
        const stored = new Set(info.who);
        for (const entry of acknowledged.filter((a) => a.startsWith(`${entity}/`))) {
          assert.ok(stored.has(entry.split('/')[1]!), `${entry} was acknowledged but is missing after SIGKILL (round ${round})`);
        }
        // State and table were written in one write group: they agree after recovery.
        assert.equal(info.state.count, info.who.length, `${entity}: state and rows agree`);
      }
      await restarted.stop('SIGTERM');
    }
    assert.ok(totalAcknowledged > 0, 'some writes were acknowledged before the kills');
  });
});
