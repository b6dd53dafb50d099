// Security properties, each with a test: instance names never leave the data folder, hostile header
// values stay data in copy-as-cURL, the render emulator navigates only to the web, the admin
// token guards the admin API, and secrets never reach the logs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { curlCommand } from '../../../src/core/curl';
import { renderCurl } from '../../../src/core/browserRendering/client';
import { startServe } from '../helpers/serveProcess';
import { serveDefaultWorker, type Served } from '../helpers/serveWorker';
import { startEmulator, type Emulator } from '../serve/renderEmulator/fixtures';
import { githubPush, SECRETS, signed } from '../workers/payloads';

/** Every file under `dir`, as absolute paths. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.resolve(dir, f));
}

describe('instance names and the file system', () => {
  let served: Served;
  let outside: string;
  before(async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-traversal-'));
    outside = path.join(parent, 'outside');
    served = await serveDefaultWorker({ secrets: SECRETS, dataDir: path.join(parent, 'data') });
  });
  after(() => served.stop());

  it('keeps every instance inside the data folder, whatever the entity name', async () => {
    const names = [
      '..',
      '../outside',
      '..%2F..%2Foutside',
      '%2e%2e%2f%2e%2e%2foutside',
      '..\\..\\outside',
      'a/../../outside',
      '/etc/passwd',
      'CON',
      'nul',
      '.',
      '~',
      'x'.repeat(300),
      'a%00b',
      '你好',
      'é/../é',
    ];
    const statuses: number[] = [];
    for (const name of names) {
      // Raw paths, so neither fetch nor URL normalizes the dots away.
      const push = githubPush('Acme/Traversal', `t-${name.length}-${statuses.length}`);
      statuses.push(
        await new Promise<number>((resolve, reject) => {
          const request = http.request(`${served.url}/webhooks/github/${name}`, { method: 'POST', headers: push.headers }, (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          });
          request.on('error', reject);
          request.end(push.body);
        }),
      );
      // …and in the payload, where the entity comes from repository.full_name.
      const fromPayload = signed('github', JSON.stringify({ repository: { full_name: name }, ref: 'x' }), {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': `p-${statuses.length}`,
      });
      const response = await fetch(`${served.url}/webhooks/github`, { method: 'POST', body: fromPayload.body, headers: fromPayload.headers });
      statuses.push(response.status);
    }
    assert.ok(
      statuses.every((s) => s < 500),
      JSON.stringify(statuses),
    );
    assert.ok(statuses.filter((s) => s === 200).length >= names.length, 'most hostile names are just names');
    assert.equal(fs.existsSync(outside), false);
    const data = fs.realpathSync(served.dataDir);
    for (const file of filesUnder(served.dataDir)) assert.ok(fs.realpathSync(file).startsWith(data + path.sep), file);
  });
});

describe('copy as cURL', () => {
  let server: http.Server;
  let url: string;
  const seen: { headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?a=1&b='2'`;
  });
  after(() => server.close());

  // The server answers in this process, so the shell runs asynchronously.
  const shell = (command: string) => promisify(execFile)('bash', ['-c', `${command} --silent --output /dev/null`], { timeout: 10_000 });

  it('delivers hostile header values and bodies as data: no shell expansion, no extra header', async () => {
    const marker = path.join(os.tmpdir(), `hb-pwned-${process.pid}`);
    const hostile = `x'; touch ${marker}; echo '$(touch ${marker})\`touch ${marker}\``;
    const body = Buffer.from(`{"note":"${hostile.replace(/"/g, '\\"')}","newline":"a\\nb"}`);
    const command = curlCommand(url, 'POST', { 'X-Note': hostile, 'Content-Type': 'application/json', Host: 'evil.example' }, body);
    await shell(command);
    assert.equal(fs.existsSync(marker), false, 'nothing in the command ran');
    const got = seen.at(-1)!;
    assert.equal(got.headers['x-note'], hostile);
    assert.deepEqual(got.body, body);
    assert.notEqual(got.headers.host, 'evil.example', 'Host is curl’s own, never copied');

    const binary = Buffer.from([0, 1, 2, 0xff, 0x27, 0x0a]);
    await shell(curlCommand(url, 'POST', {}, binary));
    assert.deepEqual(seen.at(-1)!.body, binary);
  });

  it('quotes the method too: a planted method runs nothing, and transport noise is left out', async () => {
    const marker = path.join(os.tmpdir(), `hb-pwned-method-${process.pid}`);
    const command = curlCommand(
      url,
      `POST'; touch ${marker}; echo '`,
      { 'Accept-Encoding': 'gzip', 'Sec-Fetch-Mode': 'cors', Connection: 'keep-alive', 'X-Kept': 'yes' },
      Buffer.from('{}'),
    );
    assert.match(command, /^curl -X 'POST'\\''; touch /);
    assert.doesNotMatch(command, /Accept-Encoding|Sec-Fetch-Mode|Connection/);
    assert.match(command, /X-Kept: yes/);
    // curl refuses the odd method or the server answers it; either way the shell ran nothing else.
    await shell(command).catch(() => undefined);
    assert.equal(fs.existsSync(marker), false, 'the method became a command');
  });

  it('the render request’s cURL hides the token unless asked, and quotes the body', () => {
    const target = { baseUrl: 'http://127.0.0.1:8788/client/v4', accountId: "acct'; id", token: 'secret-render-token' };
    const hidden = renderCurl(target, 'screenshot', { html: "<p>it's $(id)</p>" });
    assert.doesNotMatch(hidden, /secret-render-token/);
    assert.match(hidden, /\$CLOUDFLARE_API_TOKEN/);
    assert.match(hidden, /accounts\/acct'\\''%3B%20id\//);
    assert.match(renderCurl(target, 'pdf', {}, true), /Bearer secret-render-token/);
    execFileSync('bash', ['-n', '-c', hidden]);
  });
});

describe('what the render emulator may navigate to', () => {
  let emulator: Emulator;
  let site: http.Server;
  let siteUrl: string;
  before(async () => {
    emulator = await startEmulator();
    site = http.createServer((req, res) => {
      if (req.url === '/to-file') return void res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<iframe src="file:///etc/passwd"></iframe><p>page</p>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  after(async () => {
    await emulator.stop();
    site.close();
  });

  it('refuses non-web URLs, a redirect to file:, and never shows a local file in a frame', async () => {
    for (const url of [
      'file:///etc/passwd',
      'chrome://version',
      'view-source:http://127.0.0.1/',
      'javascript:alert(1)',
      'data:text/html,<p>x</p>',
      'ftp://example.com/',
    ]) {
      const response = await emulator.post('content', { url });
      assert.equal(response.status, 400, url);
    }
    const redirected = await emulator.post('content', { url: `${siteUrl}/to-file` });
    assert.ok(redirected.status >= 400, `redirect to file: answered ${redirected.status}`);
    assert.doesNotMatch(await redirected.text(), /root:x:0:0/);
    const framed = await emulator.client.render('content', { url: `${siteUrl}/frame` });
    assert.doesNotMatch(JSON.stringify(framed), /root:x:0:0/);
    const inline = await emulator.client.render('content', {
      html: '<iframe src="file:///etc/passwd"></iframe><object data="file:///etc/passwd"></object>',
      waitForTimeout: 200,
    });
    assert.doesNotMatch(JSON.stringify(inline), /root:x:0:0/);
  });
});

describe('the admin token and secrets in logs', () => {
  it('refuses the admin API without the token, and no secret or token reaches the serve log', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-secret-log-'));
    const serve = await startServe(['--data', data, '--admin-token', 'admin-token-do-not-log'], {
      ...SECRETS,
      HOOKBENCH_RENDER_TOKEN: 'render-token-do-not-log',
      HOOKBENCH_LOG_LEVEL: 'debug',
    });
    try {
      for (const authorization of [undefined, 'Bearer wrong', 'Bearer admin-token-do-not-lo', 'admin-token-do-not-log', 'Basic admin-token-do-not-log']) {
        const response = await fetch(`${serve.url}/__hookbench/instances`, { headers: authorization ? { authorization } : {} });
        assert.equal(response.status, 401, String(authorization));
      }
      assert.equal((await fetch(`${serve.url}/__hookbench/instances`, { headers: { authorization: 'Bearer admin-token-do-not-log' } })).status, 200);
      const good = githubPush('Acme/Logs', 'log-good');
      await fetch(`${serve.url}/webhooks/github`, { method: 'POST', body: good.body, headers: good.headers });
      const forged = signed(
        'github',
        good.body,
        { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'log-forged' },
        undefined,
        'forged',
      );
      await fetch(`${serve.url}/webhooks/github`, { method: 'POST', body: forged.body, headers: forged.headers });
    } finally {
      await serve.stop();
    }
    const everything =
      serve.stdout() +
      serve.stderr() +
      filesUnder(data)
        .filter((f) => fs.statSync(f).isFile() && !f.endsWith('.sqlite'))
        .map((f) => fs.readFileSync(f, 'latin1'))
        .join('');
    for (const secret of [...Object.values(SECRETS), 'admin-token-do-not-log', 'render-token-do-not-log'])
      assert.ok(!everything.includes(secret), `${secret.slice(0, 6)}… leaked`);
  });
});
