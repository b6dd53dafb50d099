// Another user of the machine (here `nobody`, through runuser) on loopback against a real
// `hookbench serve`: it reaches the webhook routes, which verify signatures, and nothing else —
// not the agents' HTTP and WebSocket routes (stored payloads, state frames, new instances), the
// sink, the admin API and its live feed, nor the render emulator. The owner's own clients, with
// no token for the agents routes, work as before.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { startServe, type ServeProcess } from '../helpers/serveProcess';
import { githubPush, SECRETS } from '../workers/payloads';

const ADMIN_TOKEN = 'admin-token-loopback-user';
const RENDER_TOKEN = 'render-token-loopback-user';

function skipReason(): string | undefined {
  if (process.platform !== 'linux') return 'the peer check reads /proc/net/tcp (Linux)';
  if (process.getuid?.() !== 0) return 'needs root, to run commands as another user with runuser';
  try {
    execFileSync('runuser', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'runuser is not installed';
  }
  return undefined;
}

/** One request a client makes: an HTTP request or a WebSocket opening (status 101 when it opens). */
interface Probe {
  /** `connections`: opens `count` idle connections and reports how many the server closed. */
  readonly kind: 'http' | 'ws' | 'connections';
  readonly count?: number;
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** For a WebSocket that opens: frames to send, then the frames received within a moment. */
  readonly send?: readonly string[];
}

interface Outcome {
  readonly status: number;
  readonly body: string;
  readonly frames: readonly string[];
}

// The client, as plain Node, so it runs as `nobody` from a world-readable file; `ws` by its path.
const CLIENT = `
const WebSocket = require(process.env.WS_MODULE);
async function probe(p) {
  if (p.kind === 'connections') {
    const net = require('node:net');
    const { port, hostname } = new URL(p.url);
    const sockets = await Promise.all(Array.from({ length: p.count }, () => new Promise((resolve) => {
      const socket = net.connect(Number(port), hostname, () => resolve(socket));
      socket.on('error', () => resolve(socket));
    })));
    // The server names each connection's user, then closes those past the bound; a connection it
    // keeps answers a request once it has named its user. Each one either answers or closes.
    const outcomes = await Promise.all(sockets.map((socket) => new Promise((resolve) => {
      socket.once('data', () => resolve('answered'));
      socket.once('close', () => resolve('closed'));
      socket.write('GET /webhooks/github HTTP/1.1\\r\\nHost: ' + hostname + ':' + port + '\\r\\n\\r\\n', () => undefined);
    })));
    for (const socket of sockets) socket.destroy();
    return { status: outcomes.filter((o) => o === 'closed').length, body: '', frames: [] };
  }
  if (p.kind === 'http') {
    const response = await fetch(p.url, { method: p.method || 'GET', headers: p.headers || {}, body: p.body });
    return { status: response.status, body: await response.text(), frames: [] };
  }
  return new Promise((resolve) => {
    const socket = new WebSocket(p.url);
    const frames = [];
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, body, frames }));
    });
    socket.on('error', (e) => resolve({ status: 0, body: String(e.message), frames }));
    // Open: once every rpc sent has its answer (frames without an id ask for none).
    const asked = (p.send || []).map((frame) => JSON.parse(frame).id).filter(Boolean);
    const done = () => {
      const answered = frames.map((f) => JSON.parse(f)).filter((f) => f.type === 'rpc').map((f) => f.id);
      if (!asked.every((id) => answered.includes(id))) return;
      socket.close();
      resolve({ status: 101, body: '', frames });
    };
    socket.on('message', (data) => {
      frames.push(String(data));
      done();
    });
    socket.on('open', () => {
      for (const frame of p.send || []) socket.send(frame);
      done();
    });
  });
}
(async () => {
  const probes = JSON.parse(process.argv[2]);
  const outcomes = [];
  for (const p of probes) outcomes.push(await probe(p));
  process.stdout.write(JSON.stringify(outcomes));
})();
`;

let clientFile = '';

/** Runs the probes as `nobody`, in order. */
function asNobody(probes: readonly Probe[]): Promise<Outcome[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'runuser',
      ['-u', 'nobody', '--', process.execPath, clientFile, JSON.stringify(probes)],
      { env: { ...process.env, WS_MODULE: require.resolve('ws') }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as Outcome[]);
      },
    );
  });
}

/** The same probes as this user (the owner of serve). */
async function asOwner(probe: Probe): Promise<Outcome> {
  if (probe.kind === 'http') {
    const response = await fetch(probe.url, { method: probe.method ?? 'GET', headers: probe.headers, body: probe.body });
    return { status: response.status, body: await response.text(), frames: [] };
  }
  return new Promise((resolve) => {
    const socket = new WebSocket(probe.url);
    const frames: string[] = [];
    socket.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, body: '', frames }));
    socket.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
    socket.on('open', () => {
      for (const frame of probe.send ?? []) socket.send(frame);
      // The agent's first frames (identity, state, MCP servers) arrive at once; a reply after the call.
      const done = () => (socket.close(), resolve({ status: 101, body: '', frames }));
      socket.on('message', () => frames.some((f) => f.includes('"type":"rpc"')) && done());
      if (!probe.send?.length) socket.once('message', done);
    });
  });
}

const getEvents = JSON.stringify({ type: 'rpc', id: 'r1', method: 'getEvents', args: [20] });
const forgedState = JSON.stringify({ type: 'cf_agent_state', state: { forged: true } });

describe('another user of the machine, on loopback', () => {
  let serve: ServeProcess;
  let render: string;
  let state: () => Promise<unknown>;
  let instances: () => Promise<number>;

  before(async () => {
    if (skipReason()) return;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-loopback-user-'));
    fs.chmodSync(dir, 0o755);
    clientFile = path.join(dir, 'client.cjs');
    fs.writeFileSync(clientFile, CLIENT, { mode: 0o644 });
    serve = await startServe(['--data', path.join(dir, 'data'), '--no-watch'], {
      GITHUB_WEBHOOK_SECRET: SECRETS.GITHUB_WEBHOOK_SECRET,
      HOOKBENCH_ADMIN_TOKEN: ADMIN_TOKEN,
      HOOKBENCH_RENDER_TOKEN: RENDER_TOKEN,
    });
    render = /^render on (http:\/\/\S+\/client\/v4)$/m.exec(serve.stdout())![1]!;
    const push = githubPush('Acme/Widgets', 'private-1');
    const stored = await fetch(`${serve.url}/webhooks/github/acme-widgets`, { method: 'POST', body: push.body, headers: push.headers });
    assert.equal(stored.status, 200);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    state = async () =>
      ((await (await fetch(`${serve.url}/__hookbench/instances/WebhookAgent/acme-widgets`, { headers: admin })).json()) as { state: unknown }).state;
    instances = async () =>
      ((await (await fetch(`${serve.url}/__hookbench/instances`, { headers: admin })).json()) as { instances: unknown[] }).instances.length;
  });
  after(async () => {
    if (serve) assert.equal(await serve.stop(), 0);
  });

  it('cannot open an agent’s WebSocket: no stored payloads through getEvents, no forged state', async (t) => {
    const skip = skipReason();
    if (skip) return t.skip(skip);
    const before = await state();
    const ws = `${serve.url.replace('http', 'ws')}/agents/webhook-agent/acme-widgets`;
    const [events, forged] = await asNobody([
      { kind: 'ws', url: ws, send: [getEvents] },
      { kind: 'ws', url: ws, send: [forgedState] },
    ]);
    for (const outcome of [events!, forged!]) {
      assert.equal(outcome.status, 403, JSON.stringify(outcome));
      assert.match(outcome.body, /another user of this machine \(uid \d+\) may reach only the webhook routes/);
      assert.deepEqual(outcome.frames, []);
    }
    assert.deepEqual(await state(), before);
  });

  it('gets 403 from the agents HTTP routes, the sink, the admin API, its live feed and the render emulator, token or not', async (t) => {
    const skip = skipReason();
    if (skip) return t.skip(skip);
    const outcomes = await asNobody([
      { kind: 'http', url: `${serve.url}/agents/webhook-agent/acme-widgets`, method: 'POST', body: '{}' },
      { kind: 'http', url: `${serve.url}/__hookbench/sink/outbound`, method: 'POST', body: 'captured?' },
      { kind: 'http', url: `${serve.url}/__hookbench/instances`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
      { kind: 'ws', url: `${serve.url.replace('http', 'ws')}/__hookbench/live`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
      {
        kind: 'http',
        url: `${render}/accounts/acct/browser-rendering/content`,
        method: 'POST',
        headers: { authorization: `Bearer ${RENDER_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html: '<p>x</p>' }),
      },
    ]);
    for (const outcome of outcomes) assert.equal(outcome.status, 403, JSON.stringify(outcome));
  });

  it('creates no instance with sockets to fifty new names', async (t) => {
    const skip = skipReason();
    if (skip) return t.skip(skip);
    const count = await instances();
    const outcomes = await asNobody(
      Array.from({ length: 50 }, (_, i): Probe => ({ kind: 'ws', url: `${serve.url.replace('http', 'ws')}/agents/webhook-agent/new-${i}` })),
    );
    assert.deepEqual(new Set(outcomes.map((o) => o.status)), new Set([403]));
    assert.equal(await instances(), count);
  });

  it('holds at most 64 open connections, the rest closed', async (t) => {
    const skip = skipReason();
    if (skip) return t.skip(skip);
    const [outcome] = await asNobody([{ kind: 'connections', url: serve.url, count: 70 }]);
    assert.equal(outcome!.status, 6);
  });

  it('still delivers a signed webhook, and a forged one gets 401', async (t) => {
    const skip = skipReason();
    if (skip) return t.skip(skip);
    const push = githubPush('Acme/Widgets', 'from-nobody');
    const [signed, forged] = await asNobody([
      { kind: 'http', url: `${serve.url}/webhooks/github/acme-widgets`, method: 'POST', headers: push.headers, body: push.body },
      {
        kind: 'http',
        url: `${serve.url}/webhooks/github/acme-widgets`,
        method: 'POST',
        headers: { ...push.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
        body: push.body,
      },
    ]);
    assert.equal(signed!.status, 200, signed!.body);
    assert.equal(forged!.status, 401, forged!.body);
  });

  it('leaves the owner’s own clients as they were, with no token: the agent’s WebSocket and its HTTP route', async (t) => {
    const skip = skipReason();
    if (skip) return t.skip(skip);
    const ws = await asOwner({ kind: 'ws', url: `${serve.url.replace('http', 'ws')}/agents/webhook-agent/acme-widgets`, send: [getEvents] });
    assert.equal(ws.status, 101);
    const reply = ws.frames.map((f) => JSON.parse(f) as { type: string; id?: string; result?: unknown[] }).find((f) => f.type === 'rpc' && f.id === 'r1');
    assert.ok(reply && Array.isArray(reply.result) && reply.result.length >= 1, JSON.stringify(ws.frames));
    const http = await asOwner({ kind: 'http', url: `${serve.url}/agents/webhook-agent/acme-widgets`, method: 'POST', body: '{}' });
    assert.notEqual(http.status, 403, http.body);
  });
});
