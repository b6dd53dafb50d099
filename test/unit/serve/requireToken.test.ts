// `serve --require-token`, for platforms that cannot name a loopback connection's user: every
// route but the webhook routes asks for the admin token (a header, a query parameter, or the
// session cookie from the login URL), and the worker never sees the token in any of its forms.
// The platform is played by a peer identifier that names no one, as on macOS and Windows.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { nullLogger } from '../../../src/core/log';
import type { WorkerRuntime } from '../../../src/runtime/worker/workerRuntime';
import { DEFAULT_POLICY } from '../../../src/serve/net/access';
import { PeerIdentifier } from '../../../src/serve/net/localPeer';
import { Receiver } from '../../../src/serve/http/receiver';
import { projectRoot } from '../helpers/serveWorker';
import { startServe } from '../helpers/serveProcess';

const TOKEN = 'owner-token-7f3a';

/** A worker that answers with what it was given: the URL, and the headers it saw. */
const echo = {
  fetch: async (request: Request) => Response.json({ url: request.url, headers: Object.fromEntries(request.headers) }),
} as unknown as WorkerRuntime;

let open: Receiver[] = [];
afterEach(async () => {
  await Promise.all(open.map((r) => r.close()));
  open = [];
});

/** A receiver on a platform that cannot tell local users apart. */
async function unverifiedReceiver(requireToken: string | undefined): Promise<string> {
  const receiver = new Receiver({
    host: '127.0.0.1',
    port: 0,
    runtime: async () => echo,
    logger: nullLogger,
    access: { ...DEFAULT_POLICY, ...(requireToken ? { requireToken } : {}) },
    peers: new PeerIdentifier({ uid: null }),
  });
  open.push(receiver);
  return receiver.listen();
}

type Seen = { url: string; headers: Record<string, string> };

describe('serve --require-token', () => {
  it('refuses the agents routes without the token, and still takes webhooks', async () => {
    const url = await unverifiedReceiver(TOKEN);
    const refused = await fetch(`${url}/agents/order-agent/acme`);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /--require-token and this request shows no token/);
    assert.equal((await fetch(`${url}/agents/order-agent/acme`, { headers: { 'x-hookbench-token': 'not-it' } })).status, 403);
    assert.equal((await fetch(`${url}/webhooks/github/acme`, { method: 'POST', body: '{}' })).status, 200);
  });

  it("asks no token for the data folder lock's proof, which only a reader of the lock can use, and only for it", async () => {
    const url = await unverifiedReceiver(TOKEN);
    // This receiver has no admin API: what answers is the echo worker, past the access check.
    const proof = await fetch(`${url}/__hookbench/lock/confirm`, { method: 'POST', body: JSON.stringify({ challenge: 'a'.repeat(64) }) });
    assert.equal(proof.status, 200);
    assert.equal((await fetch(`${url}/__hookbench/lock/confirm/x`, { method: 'POST', body: '{}' })).status, 403);
    assert.equal((await fetch(`${url}/__hookbench/deliveries`)).status, 403);
  });

  it('takes the token as a header, and the worker never sees it', async () => {
    const url = await unverifiedReceiver(TOKEN);
    const response = await fetch(`${url}/agents/order-agent/acme`, { headers: { 'x-hookbench-token': TOKEN, 'x-app': 'kept' } });
    assert.equal(response.status, 200);
    const seen = (await response.json()) as Seen;
    assert.equal(seen.headers['x-hookbench-token'], undefined);
    assert.equal(seen.headers['x-app'], 'kept');
  });

  it('takes the token as a query parameter (an AgentClient’s query), taken out of the URL the worker sees', async () => {
    const url = await unverifiedReceiver(TOKEN);
    const response = await fetch(`${url}/agents/order-agent/acme?a=1&hookbench_token=${TOKEN}&b=%20x`);
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as Seen).url, `${url}/agents/order-agent/acme?a=1&b=%20x`);
  });

  it('signs a browser in once from the login URL: a session cookie that is not the token, then every route', async () => {
    const url = await unverifiedReceiver(TOKEN);
    const login = await fetch(`${url}/__hookbench/login?hookbench_token=${TOKEN}&next=/dashboard`, { redirect: 'manual' });
    assert.equal(login.status, 303);
    assert.equal(login.headers.get('location'), '/dashboard');
    const cookie = login.headers.get('set-cookie')!;
    assert.match(cookie, /^hookbench_session=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Strict$/);
    assert.ok(!cookie.includes(TOKEN));
    const session = cookie.split(';')[0]!;
    const response = await fetch(`${url}/dashboard`, { headers: { cookie: `theme=dark; ${session}` } });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as Seen).headers.cookie, 'theme=dark');
  });

  it('never sends the browser off this server, and refuses a wrong login token', async () => {
    const url = await unverifiedReceiver(TOKEN);
    const away = await fetch(`${url}/__hookbench/login?hookbench_token=${TOKEN}&next=//evil.example/`, { redirect: 'manual' });
    assert.equal(away.headers.get('location'), '/');
    assert.equal((await fetch(`${url}/__hookbench/login?hookbench_token=guess`, { redirect: 'manual' })).status, 403);
  });

  it('refuses an agents WebSocket without the token', async () => {
    const url = await unverifiedReceiver(TOKEN);
    const { default: WebSocket } = await import('ws');
    const socket = new WebSocket(`${url.replace('http', 'ws')}/agents/order-agent/acme`);
    socket.on('error', () => undefined);
    const status = await new Promise<number>((resolve) => socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    assert.equal(status, 403);
  });

  it('lets an unnamed loopback client in without --require-token, as before', async () => {
    const url = await unverifiedReceiver(undefined);
    assert.equal((await fetch(`${url}/agents/order-agent/acme`)).status, 200);
  });

  it('needs an admin token to start, and writes the login URL where only its owner reads it', async () => {
    const cli = path.join(projectRoot(), 'dist', 'cli.js');
    const env = { ...process.env };
    delete env['HOOKBENCH_ADMIN_TOKEN'];
    const refused = spawnSync(process.execPath, [cli, 'serve', '--require-token', '--port', '0', '--no-render'], { env, encoding: 'utf8', timeout: 20_000 });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr.trim().split('\n')[0]!, /--require-token needs an admin token: set HOOKBENCH_ADMIN_TOKEN/);

    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-require-token-'));
    const serve = await startServe(['--data', data, '--no-render', '--no-watch', '--require-token'], { HOOKBENCH_ADMIN_TOKEN: TOKEN });
    try {
      const file = path.join(data, '_hookbench', 'login');
      assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
      assert.equal(fs.readFileSync(file, 'utf8').trim(), `${serve.url}/__hookbench/login?hookbench_token=${TOKEN}`);
      assert.match(serve.stdout(), /browsers sign in once with the URL in .*_hookbench\/login/);
    } finally {
      assert.equal(await serve.stop(), 0);
    }
  });
});
