// Local-security bounds of the serve process: WebSocket message size (after inflation) and sockets
// per client, stacks in 500 answers only for loopback non-browser clients, and what of the
// environment reaches worker code.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import WebSocket from 'ws';
import { MAX_WEBSOCKET_MESSAGE, MAX_WEBSOCKETS_PER_CLIENT } from '../../../src/serve/http/receiver';
import { startServe } from '../helpers/serveProcess';
import { projectRoot, serveDefaultWorker, serveFixture, type Served } from '../helpers/serveWorker';
import { SECRETS } from '../workers/payloads';

/** Resolves with the code the socket closes with. */
function closeCode(socket: WebSocket): Promise<number> {
  return new Promise((resolve) => socket.once('close', (code) => resolve(code)));
}

function opened(socket: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
}

/** A raw GET with chosen headers (fetch would add Sec-Fetch-* and refuse to set Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('WebSocket bounds', () => {
  let served: Served;
  before(async () => {
    served = await serveDefaultWorker({ secrets: SECRETS });
  });
  after(() => served.stop());

  it('closes a socket whose message inflates past 1 MiB with 1009, without holding the inflated bytes', { timeout: 30_000 }, async () => {
    const socket = new WebSocket(`${served.url.replace('http', 'ws')}/agents/webhook-agent/bomb`, { perMessageDeflate: true });
    await opened(socket);
    const closed = closeCode(socket);
    // 64 MiB of zeros deflate to about 64 KB: the review's 92 KB message cost 260 MB before.
    const zeros = Buffer.alloc(64 * 1024 * 1024);
    const compressed = deflateRawSync(zeros);
    assert.ok(compressed.length < 200_000);
    const rssBefore = process.memoryUsage().rss;
    socket.send(zeros, { compress: true, binary: true });
    assert.equal(await closed, 1009);
    // The server (in this process) stopped inflating at the bound: far less than the 64 MiB it would hold.
    assert.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024 + 32 * 1024 * 1024, 'memory stays bounded');
    assert.equal(MAX_WEBSOCKET_MESSAGE, 1024 * 1024);
  });

  it('keeps accepting a message just under the bound', async () => {
    const socket = new WebSocket(`${served.url.replace('http', 'ws')}/agents/webhook-agent/big`, { perMessageDeflate: true });
    await opened(socket);
    let closedWith: number | undefined;
    socket.once('close', (code) => (closedWith = code));
    socket.send(JSON.stringify({ type: 'noise', pad: 'x'.repeat(MAX_WEBSOCKET_MESSAGE - 100) }));
    // A round trip after it proves the socket is still open.
    const pong = new Promise<void>((resolve) => socket.once('pong', () => resolve()));
    socket.ping();
    await pong;
    assert.equal(closedWith, undefined);
    socket.close();
  });

  it('refuses a client its socket past the per-client cap with 429, and takes it again once one closes', async () => {
    const sockets: WebSocket[] = [];
    try {
      for (let i = 0; i < MAX_WEBSOCKETS_PER_CLIENT; i++) {
        const socket = new WebSocket(`${served.url.replace('http', 'ws')}/agents/webhook-agent/cap-${i % 8}`);
        sockets.push(socket);
      }
      await Promise.all(sockets.map(opened));
      const refused = new WebSocket(`${served.url.replace('http', 'ws')}/agents/webhook-agent/cap-extra`);
      refused.on('error', () => undefined);
      const status = await new Promise<number>((resolve) => refused.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
      assert.equal(status, 429);
      refused.terminate();
      const one = sockets.pop()!;
      const gone = closeCode(one);
      one.close();
      await gone;
      const again = new WebSocket(`${served.url.replace('http', 'ws')}/agents/webhook-agent/cap-again`);
      await opened(again);
      sockets.push(again);
    } finally {
      for (const socket of sockets) socket.terminate();
    }
  });
});

describe('stacks in 500 answers', () => {
  let served: Served;
  before(async () => {
    served = await serveFixture('compat');
  });
  after(() => served.stop());

  it('shows the stack to a loopback client that is no web page, as wrangler dev does', async () => {
    const response = await rawGet(`${served.url}/worker-throws`, {});
    assert.equal(response.status, 500);
    assert.match(response.body, /Error: thrown in the worker fetch\n\s+at /);
  });

  it('shows no stack to a browser page or to a request naming another host; the log has it', async () => {
    const fromPage = await rawGet(`${served.url}/worker-throws`, { origin: 'http://localhost:3000' });
    const rebound = await rawGet(`${served.url}/worker-throws`, { host: 'evil.example' });
    assert.equal(fromPage.status, 500);
    assert.doesNotMatch(fromPage.body, /\s+at /);
    assert.match(fromPage.body, /Internal Server Error/);
    // A foreign Host on a non-webhook route is refused before the worker runs.
    assert.equal(rebound.status, 403);
    assert.ok(
      served.logs.some((line) => /Error: thrown in the worker fetch\n\s+at /.test(line)),
      'the stack is in the log',
    );
  });
});

describe('the environment worker code sees', () => {
  it("holds the providers' webhook secrets and the --secret-env names, never other credentials or Hookbench's tokens", async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-env-'));
    const worker = path.join(projectRoot(), 'test', 'fixtures', 'workers', 'compat', 'src', 'index.ts');
    const serve = await startServe(['--data', data, '--no-render', '--worker', worker, '--secret-env', 'MY_SERVICE_KEY'], {
      GITHUB_WEBHOOK_SECRET: 'gh',
      MY_SERVICE_KEY: 'named',
      AWS_SECRET_ACCESS_KEY: 'cloud',
      GITHUB_TOKEN: 'ghp',
      CLOUDFLARE_API_TOKEN: 'cf',
      HOOKBENCH_ADMIN_TOKEN: 'admin',
    });
    try {
      const keys = (await (await fetch(`${serve.url}/env-keys`)).json()) as string[];
      assert.ok(keys.includes('GITHUB_WEBHOOK_SECRET'), JSON.stringify(keys));
      assert.ok(keys.includes('MY_SERVICE_KEY'));
      for (const stray of ['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'CLOUDFLARE_API_TOKEN', 'HOOKBENCH_ADMIN_TOKEN'])
        assert.ok(!keys.includes(stray), `${stray} reached the worker`);
    } finally {
      await serve.stop();
    }
  });

  it('reads the .dev.vars beside the wrangler config, as wrangler dev does', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-devvars-'));
    const copy = path.join(data, 'worker');
    fs.cpSync(path.join(projectRoot(), 'test', 'fixtures', 'workers', 'compat'), copy, { recursive: true });
    fs.writeFileSync(path.join(copy, '.dev.vars'), 'FROM_DEV_VARS="yes"\n');
    const serve = await startServe(['--data', path.join(data, 'data'), '--no-render', '--worker', path.join(copy, 'src', 'index.ts')]);
    try {
      const keys = (await (await fetch(`${serve.url}/env-keys`)).json()) as string[];
      assert.ok(keys.includes('FROM_DEV_VARS'), JSON.stringify(keys));
    } finally {
      await serve.stop();
    }
  });
});
