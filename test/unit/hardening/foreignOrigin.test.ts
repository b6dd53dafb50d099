// A web page on a foreign origin, in a real Chromium, against a real `hookbench serve`: it cannot
// open an agent's WebSocket, read the admin API (even knowing the token, even same-origin after a
// DNS rebinding), post to the sink or drive the render emulator; its unsigned webhook posts reach
// the worker and create nothing. Webhooks from anywhere, and loopback clients, still work.
// `evil.test` resolves to 127.0.0.1 in this Chromium only (--host-resolver-rules), as a rebound
// name would.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { chromiumProcesses } from '../helpers/procfs';
import { startServe, type ServeProcess } from '../helpers/serveProcess';
import { FrameClient } from '../helpers/serveWorker';
import { githubPush, SECRETS } from '../workers/payloads';

const ADMIN_TOKEN = 'admin-token-foreign-origin';
const RENDER_TOKEN = 'render-token-foreign-origin';

/** Opens a WebSocket in the page and reports whether it ever opened (runs in the page). */
function webSocketInPage(url: string): Promise<{ opened: boolean; code: number }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    let opened = false;
    socket.onopen = () => {
      opened = true;
      socket.close(1000);
    };
    socket.onclose = (event) => resolve({ opened, code: event.code });
  });
}

/** A fetch from the page: what the page itself can see of the answer (runs in the page). */
async function fetchInPage(url: string, init: RequestInit): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(url, init);
  return { status: response.status, type: response.type, text: await response.text() };
}

/** `count` no-cors webhook posts with a made-up signature, all at once (runs in the page). */
function forgedWebhooksInPage(base: string, count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, (_, n) =>
      fetch(`${base}/webhooks/github/e${n}`, {
        method: 'POST',
        mode: 'no-cors',
        // A no-cors request drops the signature header: the worker sees an unsigned delivery.
        headers: { 'content-type': 'text/plain', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}`, 'x-github-event': 'push' },
        body: JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: `Evil/E${n}` } }),
      }).then((response) => response.type),
    ),
  );
}

let serve: ServeProcess;
let servePort: number;
let renderPort: number;
let site: http.Server;
let sitePort: number;
let browser: Browser;

before(async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-foreign-origin-'));
  serve = await startServe(['--data', data, '--no-watch'], {
    GITHUB_WEBHOOK_SECRET: SECRETS.GITHUB_WEBHOOK_SECRET,
    HOOKBENCH_ADMIN_TOKEN: ADMIN_TOKEN,
    HOOKBENCH_RENDER_TOKEN: RENDER_TOKEN,
  });
  servePort = Number(new URL(serve.url).port);
  const render = /^render on (http:\/\/\S+)\/client\/v4$/m.exec(serve.stdout());
  assert.ok(render, serve.stdout());
  renderPort = Number(new URL(render[1]!).port);
  site = http.createServer(
    (_req, res) =>
      void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>a page</title><p>nothing to see here</p>'),
  );
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;
  browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    pipe: true,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--host-resolver-rules=MAP evil.test 127.0.0.1', '--no-proxy-server'],
  });
});

after(async () => {
  await browser?.close();
  site?.close();
  await serve?.stop();
});

/** A tab on `url`, and the status its navigation got. */
async function open(url: string): Promise<{ page: Page; status: number }> {
  const page = await browser.newPage();
  const response = await page.goto(url);
  return { page, status: response?.status() ?? 0 };
}

/** The attacker's page, on a foreign origin that resolves to loopback. */
async function evilPage(): Promise<Page> {
  const { page, status } = await open(`http://evil.test:${sitePort}/`);
  assert.equal(status, 200);
  return page;
}

/** Resolves once serve's log holds `text`, as it writes it. */
function logged(text: string, ms = 5000): Promise<void> {
  const stream = serve.child.stderr!;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!serve.stderr().includes(text)) return;
      clearTimeout(timer);
      stream.off('data', check);
      resolve();
    };
    const timer = setTimeout(() => {
      stream.off('data', check);
      reject(new Error(`serve did not log ${JSON.stringify(text)} within ${ms} ms:\n${serve.stderr()}`));
    }, ms);
    stream.on('data', check);
    check();
  });
}

async function admin<T>(route: string): Promise<T> {
  const response = await fetch(`${serve.url}/__hookbench/${route}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(response.status, 200, route);
  return (await response.json()) as T;
}

async function instanceNames(): Promise<string[]> {
  return (await admin<{ instances: { name: string }[] }>('instances')).instances.map((i) => i.name);
}

describe('a page on a foreign origin', () => {
  it('cannot open an agent’s WebSocket, and no instance is created', async () => {
    const page = await evilPage();
    const socket = await page.evaluate(webSocketInPage, `ws://127.0.0.1:${servePort}/agents/webhook-agent/acme`);
    assert.deepEqual(socket, { opened: false, code: 1006 });
    await logged(`[security] refused a WebSocket to /agents/webhook-agent/acme: origin "http://evil.test:${sitePort}" is not allowed`);
    assert.ok(!(await instanceNames()).includes('acme'));
  });

  it('cannot post to the token-less sink, even in no-cors mode', async () => {
    const page = await evilPage();
    const answer = await page.evaluate(fetchInPage, `http://127.0.0.1:${servePort}/__hookbench/sink/x`, {
      method: 'POST',
      mode: 'no-cors',
      body: '{"from":"page"}',
    } as RequestInit);
    assert.equal(answer.type, 'opaque');
    // The sink itself takes posts: one from Node lands, the page's does not.
    const fromNode = await fetch(`${serve.url}/__hookbench/sink/x`, { method: 'POST', body: '{"from":"node"}' });
    assert.equal(fromNode.status, 200);
    const { captures } = await admin<{ captures: { body: string }[] }>('sink/x');
    assert.deepEqual(
      captures.map((c) => c.body),
      ['{"from":"node"}'],
    );
    await logged(`[security] refused POST /__hookbench/sink/x: origin "http://evil.test:${sitePort}" is not allowed`);
  });

  it('posts 200 forged webhooks that are answered 401, logged, and create no instance', async () => {
    const page = await evilPage();
    const types = await page.evaluate(forgedWebhooksInPage, `http://127.0.0.1:${servePort}`, 200);
    assert.equal(types.length, 200);
    assert.ok(types.every((type) => type === 'opaque'));
    const { deliveries } = await admin<{ deliveries: { path: string; status: number; requestHeaders: Record<string, string> }[] }>('deliveries?limit=1000');
    const forged = deliveries.filter((d) => /^\/webhooks\/github\/e\d+$/.test(d.path));
    assert.equal(new Set(forged.map((d) => d.path)).size, 200, 'each post is in the deliveries log');
    assert.deepEqual([...new Set(forged.map((d) => d.status))], [401]);
    assert.ok(
      forged.every((d) =>
        Object.entries(d.requestHeaders).some(([name, value]) => name.toLowerCase() === 'origin' && value === `http://evil.test:${sitePort}`),
      ),
      'they came from the page',
    );
    assert.deepEqual(await instanceNames(), []);
  });
});

describe('a page whose name was rebound to 127.0.0.1 (same-origin with serve)', () => {
  it('is refused on navigation: the Host names no loopback', async () => {
    const { status } = await open(`http://evil.test:${servePort}/`);
    assert.equal(status, 403);
    await logged(`[security] refused GET /: host "evil.test:${servePort}" is not this machine`);
  });

  it('cannot open an agent’s WebSocket', async () => {
    const { page } = await open(`http://evil.test:${servePort}/`);
    const socket = await page.evaluate(webSocketInPage, `ws://evil.test:${servePort}/agents/webhook-agent/acme`);
    assert.equal(socket.opened, false);
    await logged(`[security] refused a WebSocket to /agents/webhook-agent/acme: origin "http://evil.test:${servePort}" is not allowed`);
    assert.ok(!(await instanceNames()).includes('acme'));
  });

  it('cannot read the admin API, even with the right token', async () => {
    const { page } = await open(`http://evil.test:${servePort}/`);
    const answer = await page.evaluate(fetchInPage, `http://evil.test:${servePort}/__hookbench/instances`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    } as RequestInit);
    assert.equal(answer.type, 'basic', 'same-origin: the page could read the answer');
    assert.equal(answer.status, 403);
    assert.match(answer.text, /^Forbidden: host "evil\.test:\d+" is not this machine/);
    await logged(`[security] refused GET /__hookbench/instances: host "evil.test:${servePort}" is not this machine`);
  });

  it('cannot drive the render emulator, even with its token, and no Chromium starts', async () => {
    const { page, status } = await open(`http://evil.test:${renderPort}/`);
    assert.equal(status, 403);
    await logged(`[security] the render emulator refused GET /: host "evil.test:${renderPort}" is not this machine`);
    const answer = await page.evaluate(fetchInPage, `http://evil.test:${renderPort}/client/v4/accounts/x/browser-rendering/content`, {
      method: 'POST',
      headers: { authorization: `Bearer ${RENDER_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<p>rendered for the attacker</p>' }),
    } as RequestInit);
    assert.equal(answer.type, 'basic');
    assert.equal(answer.status, 403);
    const body = JSON.parse(answer.text) as { success: boolean; errors: { code: number }[] };
    assert.equal(body.success, false);
    assert.equal(body.errors[0]!.code, 403);
    await logged(
      `[security] the render emulator refused POST /client/v4/accounts/x/browser-rendering/content: origin "http://evil.test:${renderPort}" is not allowed`,
    );
    // The pool launches Chromium on the first render: none below serve means nothing was rendered.
    assert.deepEqual(chromiumProcesses(serve.child.pid!), []);
  });
});

describe('a loopback page', () => {
  it('cannot open a WebSocket through a name that is not this machine (the Host check alone)', async () => {
    const { page } = await open(`http://127.0.0.1:${sitePort}/`);
    const socket = await page.evaluate(webSocketInPage, `ws://evil.test:${servePort}/agents/webhook-agent/acme`);
    assert.equal(socket.opened, false);
    await logged(`[security] refused a WebSocket to /agents/webhook-agent/acme: host "evil.test:${servePort}" is not this machine`);
    assert.ok(!(await instanceNames()).includes('acme'));
  });

  it('opens an agent’s WebSocket on 127.0.0.1', async () => {
    const { page } = await open(`http://127.0.0.1:${sitePort}/`);
    const socket = await page.evaluate(webSocketInPage, `ws://127.0.0.1:${servePort}/agents/webhook-agent/loopback-page`);
    assert.deepEqual(socket, { opened: true, code: 1000 });
    assert.ok((await instanceNames()).includes('loopback-page'));
  });
});

describe('clients that are not web pages', () => {
  it('a signed webhook with a foreign Host and Origin is still answered 200 and creates its instance', async () => {
    const push = githubPush('Acme/Foreign', 'foreign-host-1');
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        `${serve.url}/webhooks/github/foreign-host`,
        { method: 'POST', headers: { ...push.headers, host: 'evil.test', origin: 'https://evil.example' } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(push.body);
    });
    assert.equal(status, 200);
    assert.ok((await instanceNames()).includes('foreign-host'));
  });

  it('a WebSocket from Node, with no Origin, opens', async () => {
    const client = new FrameClient(`${serve.url}/agents/webhook-agent/node-client`);
    await client.opened;
    await client.waitForFrames(1);
    await client.close();
    assert.ok((await instanceNames()).includes('node-client'));
  });
});
