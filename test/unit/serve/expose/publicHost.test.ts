// What a public URL reaches. A tunnel (ngrok, cloudflared) passes the public Host on, from a
// loopback address: such a request reaches the receiver's webhook routes, and gets 403 on the
// admin API (even with its token), the token-less sink, the agents routes and their WebSockets,
// and the render emulator (even with its token). The real `hookbench serve`, not configured with
// --allow-host, as `hookbench expose` leaves it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as http from 'node:http';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { schemeFor } from '../../../../src/core/signing';
import { startServe, type ServeProcess } from '../../helpers/serveProcess';
import { projectRoot } from '../../helpers/serveWorker';

const PUBLIC = 'moved-plenty-retro-seasons.trycloudflare.com';
const SECRET = 'public host secret';
const ADMIN = randomBytes(16).toString('hex');
const RENDER = randomBytes(16).toString('hex');

interface Answer {
  readonly status: number;
  readonly body: string;
}

function request(
  base: string,
  pathname: string,
  options: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const url = new URL(pathname, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: { ...(options.host ? { host: options.host } : {}), ...options.headers } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The status of a WebSocket handshake. */
function upgrade(base: string, pathname: string, host: string): Promise<number> {
  const url = new URL(pathname, base);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      headers: { host, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

function githubDelivery(): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ action: 'opened', repository: { full_name: 'acme/widgets' } });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issues',
      'x-github-delivery': randomUUID(),
      ...schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) }).headers,
    },
  };
}

describe('a public Host (a tunnel) reaches webhook routes only', () => {
  let serve: ServeProcess;
  let render: string;

  before(async () => {
    serve = await startServe(['--data', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-public-'))], {
      GITHUB_WEBHOOK_SECRET: SECRET,
      HOOKBENCH_ADMIN_TOKEN: ADMIN,
      HOOKBENCH_RENDER_TOKEN: RENDER,
    });
    render = /render on (http:\/\/\S+)/.exec(serve.stdout())![1]!;
  });
  after(async () => {
    await serve.stop();
  });

  it('delivers a signed webhook that names the public host, and records where it came from', async () => {
    const delivery = githubDelivery();
    const answer = await request(serve.url, '/webhooks/github', {
      method: 'POST',
      host: PUBLIC,
      headers: { ...delivery.headers, 'hookbench-source': 'replay' },
      body: delivery.body,
    });
    assert.equal(answer.status, 200, answer.body);
    const listed = await request(serve.url, '/__hookbench/deliveries?limit=1', { headers: { authorization: `Bearer ${ADMIN}` } });
    const [recorded] = (JSON.parse(listed.body) as { deliveries: { source?: unknown; path: string }[] }).deliveries;
    assert.equal(recorded?.path, '/webhooks/github');
    assert.deepEqual(recorded?.source, { kind: 'public', name: PUBLIC }, 'a public request cannot claim to be a replay');
  });

  it('records a loopback hookbench send as a send (the control: the same route, a loopback Host)', async () => {
    const sent = spawnSync(
      process.execPath,
      [
        path.join(projectRoot(), 'dist', 'cli.js'),
        'send',
        '--provider',
        'github',
        '--url',
        `${serve.url}/webhooks/github`,
        '--event',
        'push',
        '--secret',
        SECRET,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(sent.status, 0, sent.stderr);
    const listed = await request(serve.url, '/__hookbench/deliveries?limit=1', { headers: { authorization: `Bearer ${ADMIN}` } });
    const [recorded] = (JSON.parse(listed.body) as { deliveries: { source?: unknown; status: number; requestHeaders: Record<string, string> }[] }).deliveries;
    assert.equal(recorded?.status, 200);
    assert.deepEqual(recorded?.source, { kind: 'send' });
    assert.equal(recorded?.requestHeaders['hookbench-source'], undefined);
  });

  it('refuses the admin API with 403, even with the admin token (and serves it on loopback)', async () => {
    const auth = { authorization: `Bearer ${ADMIN}` };
    assert.equal((await request(serve.url, '/__hookbench/deliveries', { host: PUBLIC, headers: auth })).status, 403);
    assert.equal((await request(serve.url, '/__hookbench/instances', { host: `${PUBLIC}:443`, headers: auth })).status, 403);
    assert.equal((await request(serve.url, '/__hookbench/deliveries', { headers: auth })).status, 200, 'loopback Host: the same request is served');
  });

  it("refuses the token-less sink, the lock's proof and the agents routes with 403", async () => {
    assert.equal((await request(serve.url, '/__hookbench/sink/outbound', { method: 'POST', host: PUBLIC, body: '{}' })).status, 403);
    assert.equal(
      (await request(serve.url, '/__hookbench/lock/confirm', { method: 'POST', host: PUBLIC, body: JSON.stringify({ challenge: 'a'.repeat(64) }) })).status,
      403,
    );
    assert.equal((await request(serve.url, '/agents/webhook-agent/acme-widgets', { host: PUBLIC })).status, 403);
    assert.equal((await request(serve.url, '/agents/webhook-agent/acme-widgets', { method: 'POST', host: PUBLIC, body: '{}' })).status, 403);
  });

  it('refuses WebSockets to agents, the live feed, and webhook paths with 403', async () => {
    assert.equal(await upgrade(serve.url, '/agents/webhook-agent/acme-widgets', PUBLIC), 403);
    assert.equal(await upgrade(serve.url, '/__hookbench/live', PUBLIC), 403);
    assert.equal(await upgrade(serve.url, '/webhooks/github', PUBLIC), 403, 'a WebSocket carries no signature: upgrades are always checked');
  });

  it('refuses the render emulator with 403, even with its token', async () => {
    const answer = await request(render, `${new URL(render).pathname}/accounts/local/browser-rendering/screenshot`, {
      method: 'POST',
      host: PUBLIC,
      headers: { authorization: `Bearer ${RENDER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<p>x</p>' }),
    });
    assert.equal(answer.status, 403, answer.body);
    assert.match(answer.body, /not this machine/);
  });
});
