// A rendered page (real Chromium) cannot reach link-local addresses, where cloud metadata services
// answer, nor this machine's receiver admin API, by IP literal or by a name that resolves there
// (a resolver injected for the test's names, as DNS would answer them): the URL to render is
// refused with a 400 naming the address, a page's own requests are refused and logged. Loopback
// dev servers still load, directly and by a name the proxy resolves. The proxy serves its owner's
// processes only: another user (`nobody`, through runuser) cannot borrow it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { nullLogger, recording } from '../../../../src/core/log';
import { PageGuard } from '../../../../src/serve/renderEmulator/pageGuard';
import { FONT_FILE, startEmulator, startSite, type Emulator, type Site } from './fixtures';

/** Stands for the receiver: records every request. */
async function startReceiver(): Promise<{ port: number; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('receiver');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

/** The test's names, as a resolver would answer them. */
const NAMES: Record<string, string[]> = {
  'metadata.test': ['169.254.169.254'],
  'rebound.test': ['203.0.113.7', 'fe80::1'],
  'loopback.test': ['127.0.0.1'],
};
const lookup = async (hostname: string): Promise<string[]> => {
  const found = NAMES[hostname];
  if (!found) throw Object.assign(new Error(`no such name ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

let emulator: Emulator;
let site: Site;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const logger = recording(nullLogger);
before(async () => {
  receiver = await startReceiver();
  site = await startSite(fs.readFileSync(FONT_FILE));
  emulator = await startEmulator({ logger, receiverPort: receiver.port, lookup });
});
after(async () => {
  await emulator.stop();
  await site.close();
  await receiver.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (response: Response): Promise<any> => response.json();

describe('the URL to render', () => {
  for (const [url, message] of [
    [
      'http://169.254.169.254/latest/meta-data/',
      /^url: 169\.254\.169\.254 is a link-local address, where cloud metadata services answer; a rendered page may not load it$/,
    ],
    ['http://[fe80::1]/', /^url: \[fe80::1\] is a link-local address/],
    ['http://metadata.test/latest/meta-data/', /^url: metadata\.test resolves to 169\.254\.169\.254: a link-local address/],
    ['http://rebound.test/', /^url: rebound\.test resolves to fe80::1: a link-local address/],
  ] as const) {
    it(`refuses ${url} with a 400 naming the address`, async () => {
      const response = await emulator.post('content', { url, gotoOptions: { timeout: 3000 } });
      const body = await json(response);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match(body.errors[0].message, message);
    });
  }

  it("refuses the receiver's admin routes, by address and by localhost, and the receiver sees nothing", async () => {
    for (const url of [`http://127.0.0.1:${receiver.port}/__hookbench/sink`, `http://localhost:${receiver.port}/__hookbench/deliveries`]) {
      const response = await emulator.post('content', { url, gotoOptions: { timeout: 3000 } });
      const body = await json(response);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match(
        body.errors[0].message,
        new RegExp(`is the receiver's admin API \\(port ${receiver.port} of this machine\\); a rendered page may not load it$`),
      );
    }
    assert.deepEqual(receiver.seen, []);
  });

  it('fails as Chromium would without the proxy: a name that does not resolve (5005), a refused connection (5008)', async () => {
    const unknown = await emulator.post('content', { url: 'http://nowhere.test/', gotoOptions: { timeout: 5000 } });
    const body = await json(unknown);
    assert.equal(unknown.status, 422, JSON.stringify(body));
    assert.deepEqual(body.errors[0], { code: 5005, message: 'net::ERR_NAME_NOT_RESOLVED at http://nowhere.test/' });
    const closed = await startReceiver();
    await closed.close();
    const refused = await emulator.post('content', { url: `http://loopback.test:${closed.port}/`, gotoOptions: { timeout: 5000 } });
    assert.deepEqual((await json(refused)).errors[0], { code: 5008, message: `net::ERR_CONNECTION_REFUSED at http://loopback.test:${closed.port}/` });
  });

  it('still renders a loopback dev server', async () => {
    site.pages.set('/dev', '<p id="dev">dev server</p>');
    const response = await emulator.post('content', { url: `${site.url}/dev` });
    assert.equal(response.status, 200);
    assert.match((await json(response)).result, /dev server/);
  });
});

describe("a page's own requests", () => {
  it("are refused to link-local addresses and the receiver's admin API, by literal and by name, and logged; the rest still load", async () => {
    const sitePort = new URL(site.url).port;
    const before = { receiver: receiver.seen.length, site: site.seen.length, log: logger.lines().length };
    const html = `<body>
      <img src="http://169.254.169.254/latest/meta-data/iam.png">
      <img src="http://metadata.test/latest/meta-data/name.png">
      <img src="http://127.0.0.1:${receiver.port}/__hookbench/deliveries">
      <img src="http://loopback.test:${receiver.port}/__hookbench/instances">
      <img src="${site.url}/image.png?direct">
      <img src="http://loopback.test:${sitePort}/image.png?proxied">
      <script>
        const socket = new WebSocket('ws://metadata.test/socket');
        const closed = new Promise((resolve) => (socket.onclose = socket.onerror = resolve));
        Promise.allSettled([
          fetch('http://127.0.0.1:${receiver.port}/__hookbench/sink/page', { method: 'POST', mode: 'no-cors', body: 'x' }),
          fetch('http://127.0.0.1:${receiver.port}/webhooks/github', { method: 'POST', mode: 'no-cors', body: '{}' }),
          closed,
          ...[...document.images].map((img) => img.decode()),
        ]).then(() => (document.body.dataset.done = 'yes'));
      </script>
    </body>`;
    const response = await emulator.post('content', { html, waitForSelector: { selector: 'body[data-done]', timeout: 10_000 } });
    assert.equal(response.status, 200, JSON.stringify(await response.clone().json()));
    assert.deepEqual(receiver.seen.slice(before.receiver), ['POST /webhooks/github'], 'the receiver saw the webhook route only');
    const paths = site.seen.slice(before.site).map((s) => `${s.path} ${s.headers.host}`);
    assert.ok(paths.includes(`/image.png 127.0.0.1:${sitePort}`), paths.join(', '));
    assert.ok(paths.includes(`/image.png loopback.test:${sitePort}`), `through the proxy, with its Host: ${paths.join(', ')}`);
    const refusals = logger
      .lines()
      .slice(before.log)
      .filter((line) => line.includes("[security] the render emulator refused a page's request"));
    for (const expected of [
      'http://169.254.169.254/latest/meta-data/iam.png: 169.254.169.254 is a link-local address',
      'metadata.test:80: metadata.test resolves to 169.254.169.254: a link-local address',
      `http://127.0.0.1:${receiver.port}/__hookbench/deliveries: 127.0.0.1 is the receiver's admin API`,
      `http://127.0.0.1:${receiver.port}/__hookbench/sink/page: 127.0.0.1 is the receiver's admin API`,
      `loopback.test:${receiver.port}: loopback.test resolves to 127.0.0.1: the receiver's admin API`,
    ]) {
      assert.ok(
        refusals.some((line) => line.includes(expected)),
        `logged: ${expected}\n${refusals.join('\n')}`,
      );
    }
  });
});

/** A SOCKS5 CONNECT to 127.0.0.1:`port` through the proxy at `proxyPort`, run as `nobody` or as this user: the reply bytes, hex. */
function socksConnect(proxyPort: number, port: number, asNobody: boolean): Promise<string> {
  const script = `const s = require('net').connect(${proxyPort}, '127.0.0.1'); let out = Buffer.alloc(0);
    s.on('connect', () => s.write(Buffer.from([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, ${port >> 8}, ${port & 0xff}])));
    s.on('data', (d) => { out = Buffer.concat([out, d]); if (out.length >= 12) { process.stdout.write(out.subarray(0, 12).toString('hex')); process.exit(0); } });
    s.on('close', () => { process.stdout.write(out.toString('hex') || 'closed'); process.exit(0); });
    s.on('error', () => {});`;
  const command = asNobody ? ['runuser', '-u', 'nobody', '--', process.execPath, '-e', script] : [process.execPath, '-e', script];
  // Not spawnSync: the proxy answers from this process's event loop.
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('close', () => resolve(out)));
}

describe('the proxy pages go through', () => {
  it("serves this user's processes and refuses another user's, who would reach loopback services as this user through it", async (t) => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0 || spawnSync('runuser', ['--version']).status !== 0)
      return t.skip('needs Linux, root and runuser, to act as another user');
    const proxyLog = recording(nullLogger);
    const guard = new PageGuard({ logger: proxyLog, own: () => ({}) });
    const target = await startReceiver();
    try {
      const proxy = Number(new URL(await guard.listen()).port);
      // No authentication, then CONNECT 127.0.0.1 answered "succeeded" (05 00 | 05 00 …).
      assert.equal(await socksConnect(proxy, target.port, false), '050005000001000000000000');
      assert.equal(await socksConnect(proxy, target.port, true), 'closed');
      assert.ok(
        proxyLog.lines().some((line) => /\[security\] the render emulator's proxy refused a connection from another user \(uid \d+\)/.test(line)),
        proxyLog.lines().join('\n'),
      );
    } finally {
      await guard.close();
      await target.close();
    }
  });
});
