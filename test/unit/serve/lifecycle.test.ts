// Instances come and go: idle eviction and wake, reload when the worker's source changes, and a
// report when agent code blocks the event loop.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startServe } from '../helpers/serveProcess';
import { projectRoot, serveFixture } from '../helpers/serveWorker';

describe('idle eviction', () => {
  it('evicts an idle instance and wakes it again with onStart, its state intact', async () => {
    const served = await serveFixture('compat', { idleMs: 50 });
    try {
      await fetch(`${served.url}/agents/state-agent/sleepy/increment`, { method: 'POST' });
      await served.nextEvent('evicted', 'sleepy');
      const info = (await (await fetch(`${served.url}/agents/state-agent/sleepy/info`)).json()) as { startCount: number };
      assert.equal(info.startCount, 1, 'a fresh object ran onStart once');
      assert.equal(served.events.filter((e) => e.name === 'sleepy' && e.kind === 'woken').length, 2);
      const state = (await (await fetch(`${served.url}/agents/state-agent/sleepy/increment`, { method: 'POST' })).json()) as { count: number };
      assert.equal(state.count, 2);
    } finally {
      await served.stop();
    }
  });

  it('keeps an instance with an open WebSocket awake', async () => {
    const served = await serveFixture('compat', { idleMs: 30 });
    const { FrameClient } = await import('../helpers/serveWorker');
    const client = new FrameClient(`${served.url}/agents/state-agent/connected`);
    try {
      await client.waitForFrames(3);
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(served.events.filter((e) => e.name === 'connected' && e.kind === 'evicted').length, 0);
      await client.close();
      await served.nextEvent('evicted', 'connected');
    } finally {
      await served.stop();
    }
  });
});

describe('reload', () => {
  it('serves the new code after the worker source changes, with the state kept and WebSocket clients told to reconnect', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-reload-'));
    fs.cpSync(path.join(projectRoot(), 'test', 'fixtures', 'workers', 'counter'), root, { recursive: true });
    const served = await serveFixture('counter', { root, watch: true });
    const { FrameClient } = await import('../helpers/serveWorker');
    const client = new FrameClient(`${served.url}/agents/counter-agent/r`);
    try {
      await client.opened;
      const closed = new Promise<number>((resolve) => client.socket.once('close', (code) => resolve(code)));
      assert.equal(await (await fetch(`${served.url}/agents/counter-agent/r`, { method: 'POST', body: 'a' })).text(), '1');
      const file = path.join(root, 'src', 'index.ts');
      fs.writeFileSync(
        file,
        fs.readFileSync(file, 'utf8').replace('return new Response(String(this.state.count));', "return new Response('v2:' + this.state.count);"),
      );
      const deadline = Date.now() + 10_000;
      let text = '';
      while (!text.startsWith('v2:') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        text = await (await fetch(`${served.url}/agents/counter-agent/r`, { method: 'POST', body: 'b' })).text();
      }
      assert.match(text, /^v2:\d+$/);
      assert.ok(Number(text.slice(3)) >= 2, 'the count survived the reload');
      assert.ok(served.logs.some((l) => l.includes('reloaded after a source change')));
      assert.equal(await closed, 1012, 'a client of the old build is told to reconnect (Service Restart)');
    } finally {
      await served.stop();
    }
  });

  it('keeps running the previous build when the new one does not compile', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-reload-bad-'));
    fs.cpSync(path.join(projectRoot(), 'test', 'fixtures', 'workers', 'counter'), root, { recursive: true });
    const served = await serveFixture('counter', { root, watch: true });
    try {
      fs.appendFileSync(path.join(root, 'src', 'index.ts'), '\nexport const broken = ;\n');
      await served.logged('the report of the failed build', (logs) => logs.some((l) => l.includes('still running the previous build'))).catch(() => undefined);
      assert.ok(served.logs.some((l) => /cannot build .*index\.ts[\s\S]*still running the previous build/.test(l)));
      assert.equal((await fetch(`${served.url}/agents/counter-agent/ok`, { method: 'POST', body: 'x' })).status, 200);
    } finally {
      await served.stop();
    }
  });
});

describe('isolation', () => {
  it('reports agent code that blocks the event loop, and keeps serving', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-spin-'));
    const worker = path.join(projectRoot(), 'test', 'fixtures', 'workers', 'counter', 'src', 'index.ts');
    const server = await startServe(['--worker', worker, '--data', data, '--no-watch']);
    try {
      assert.equal(await (await fetch(`${server.url}/agents/counter-agent/spinner/spin`)).text(), 'spun');
      const reported = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no report of the blocked event loop within 10 s:\n${server.stderr()}`)), 10_000);
        const check = () => server.stderr().includes('the event loop was blocked') && (clearTimeout(timer), resolve());
        check();
        server.child.stderr!.on('data', check);
      });
      await reported;
      assert.match(server.stderr(), /the event loop was blocked for \d+ ms/);
      assert.equal((await fetch(`${server.url}/agents/counter-agent/spinner`, { method: 'POST', body: 'after' })).status, 200);
    } finally {
      await server.stop('SIGKILL');
    }
  });
});

describe('exit with the parent', () => {
  it('stops gracefully when its stdin closes (the extension host went away)', async () => {
    const { spawn } = await import('node:child_process');
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-parent-'));
    const child = spawn(
      process.execPath,
      [path.join(projectRoot(), 'dist', 'cli.js'), 'serve', '--port', '0', '--render-port', '0', '--data', data, '--exit-with-parent'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    await new Promise<void>((resolve) => child.stdout.on('data', (c: Buffer) => c.toString().includes('listening on') && resolve()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin.end();
    assert.equal(await exited, 0);
    assert.match(stderr, /stopped/);
  });
});
