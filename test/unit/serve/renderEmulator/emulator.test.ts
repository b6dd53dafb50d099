// The Browser Rendering emulator against Cloudflare-shaped requests, with Debian's Chromium:
// every endpoint, Cloudflare's defaults and order of operations, the error envelope and codes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { RenderClientError } from '../../../../src/core/browserRendering/client';
import { FONT_FILE, pngSize, startEmulator, startSite, TOKEN, type Emulator, type Site } from './fixtures';
import { watchedChromium } from './watchedChromium';

let emulator: Emulator;
let site: Site;
before(async () => {
  emulator = await startEmulator({ bodyLimit: 1024 * 1024 });
  site = await startSite(fs.readFileSync(FONT_FILE));
});
after(async () => {
  await emulator.stop();
  await site.close();
});

// Envelopes are loosely typed JSON; each test reads the fields it checks.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (response: Response): Promise<any> => response.json();

describe('authentication and routes', () => {
  it('refuses a missing or wrong Bearer token with 401 and code 10000', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const response = await fetch(`${emulator.base}/accounts/a/browser-rendering/content`, {
        method: 'POST',
        headers: authorization ? { authorization } : {},
        body: '{"html":"<p>x</p>"}',
      });
      assert.equal(response.status, 401);
      assert.deepEqual(await json(response), { success: false, errors: [{ code: 10000, message: 'Authentication failed' }], messages: [], result: null });
      assert.equal(response.headers.get('x-browser-ms-used'), '0');
    }
  });

  it('answers under both /browser-rendering/ and /browser-run/, 404 elsewhere, 405 for GET', async () => {
    const run = await fetch(`${emulator.base}/accounts/a/browser-run/content`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: '{"html":"<p>run</p>"}',
    });
    assert.equal(run.status, 200);
    assert.match((await json(run)).result, /<p>run<\/p>/);
    const unknown = await emulator.post('teleport', { html: '<p>x</p>' });
    assert.equal(unknown.status, 404);
    assert.equal((await json(unknown)).success, false);
    const elsewhere = await fetch(`${emulator.base}/zones/a/screenshot`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{}' });
    assert.equal(elsewhere.status, 404);
    const get = await fetch(`${emulator.base}/accounts/a/browser-rendering/screenshot`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(get.status, 405);
  });

  it('names the bad field in a 400, refuses bad JSON, file:// (5010) and bodies over the limit (413)', async () => {
    const badField = await emulator.post('screenshot', { html: '<p>x</p>', viewport: { width: 'wide' } });
    assert.equal(badField.status, 400);
    assert.match((await json(badField)).errors[0].message, /^viewport\.width: /);
    const quality = await emulator.post('screenshot', { html: '<p>x</p>', screenshotOptions: { quality: 50 } });
    assert.equal(quality.status, 400);
    assert.match((await json(quality)).errors[0].message, /quality.*png/);
    const notJson = await emulator.post('content', '{"html":');
    assert.equal(notJson.status, 400);
    assert.match((await json(notJson)).errors[0].message, /not valid JSON/);
    const file = await emulator.post('screenshot', { url: 'file:///etc/passwd' });
    assert.equal(file.status, 400);
    assert.equal((await json(file)).errors[0].code, 5010);
    const huge = await emulator.post('pdf', { html: `<p>${'x'.repeat(1024 * 1024)}</p>` });
    assert.equal(huge.status, 413);
    assert.equal((await json(huge)).errors[0].message, 'Error: request entity too large');
  });

  it('answers json with a clear not-available-locally error', async () => {
    const response = await emulator.post('json', { html: '<p>x</p>', prompt: 'extract' });
    assert.equal(response.status, 501);
    assert.match((await json(response)).errors[0].message, /not available locally/);
  });

  it('answers 429 with Retry-After under a rate limit', async () => {
    // One request every 100 s: the second is refused however slowly the machine renders the first.
    const limited = await startEmulator({ ratePerSecond: 0.01 });
    try {
      assert.equal((await limited.post('content', { html: '<p>1</p>' })).status, 200);
      const second = await limited.post('content', { html: '<p>2</p>' });
      assert.equal(second.status, 429);
      assert.ok(Number(second.headers.get('retry-after')) >= 1);
      await assert.rejects(
        limited.client.render('content', { html: '<p>3</p>' }),
        (error: RenderClientError) => error.status === 429 && error.retryAfter! >= 1,
      );
    } finally {
      await limited.stop();
    }
  });
});

describe('endpoints', () => {
  it('screenshot: a PNG of 1920×1080 by default, the viewport when given, JPEG when asked, an element by selector', async () => {
    const html = '<body style="margin:0"><div id="box" style="width:120px;height:30px;background:red">box</div></body>';
    const png = await emulator.post('screenshot', { html });
    assert.equal(png.status, 200);
    assert.equal(png.headers.get('content-type'), 'image/png');
    assert.ok(Number(png.headers.get('x-browser-ms-used')) > 0);
    assert.deepEqual(pngSize(new Uint8Array(await png.arrayBuffer())), { width: 1920, height: 1080 });
    const small = await emulator.client.render('screenshot', { html, viewport: { width: 400, height: 300, deviceScaleFactor: 2 } });
    assert.equal(small.kind, 'binary');
    assert.deepEqual(pngSize(small.kind === 'binary' ? small.bytes : new Uint8Array()), { width: 800, height: 600 });
    const jpeg = await emulator.post('screenshot', { html, screenshotOptions: { type: 'jpeg', quality: 60 } });
    assert.equal(jpeg.headers.get('content-type'), 'image/jpeg');
    assert.deepEqual([...new Uint8Array(await jpeg.arrayBuffer()).subarray(0, 2)], [0xff, 0xd8]);
    const element = await emulator.client.render('screenshot', { html, selector: '#box' });
    assert.deepEqual(pngSize(element.kind === 'binary' ? element.bytes : new Uint8Array()), { width: 120, height: 30 });
    const missing = await emulator.post('screenshot', { html, selector: '#nothing' });
    assert.equal(missing.status, 400);
    assert.match((await json(missing)).errors[0].message, /Element not found/);
  });

  it('pdf: a PDF document', async () => {
    const answer = await emulator.client.render('pdf', { html: '<h1>Invoice</h1>', pdfOptions: { format: 'A4', printBackground: true } });
    assert.equal(answer.kind, 'binary');
    if (answer.kind !== 'binary') return;
    assert.equal(answer.contentType, 'application/pdf');
    assert.equal(answer.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  });

  it('content, markdown, links, scrape and snapshot answer in the v4 envelope', async () => {
    site.pages.set(
      '/doc',
      '<title>Doc</title><h1>Title</h1><p>Some <b>bold</b> text and <a href="/next">a link</a>, <a href="https://example.org/x">another</a>.</p><ul><li>one</li><li>two</li></ul><a href="/hidden" style="display:none">hidden</a>',
    );
    const url = `${site.url}/doc`;
    const content = await emulator.client.render('content', { url });
    assert.equal(content.kind, 'json');
    assert.match(String(content.kind === 'json' && content.result), /<h1>Title<\/h1>/);
    assert.deepEqual(content.kind === 'json' && content.meta, { status: 200, title: 'Doc' });

    const markdown = await emulator.client.render('markdown', { url });
    assert.equal(
      markdown.kind === 'json' && markdown.result,
      `# Title\n\nSome **bold** text and [a link](${site.url}/next), [another](https://example.org/x).\n\n- one\n- two\n\n[hidden](${site.url}/hidden)`,
    );

    const links = await emulator.client.render('links', { url });
    assert.deepEqual(links.kind === 'json' && links.result, [`${site.url}/next`, 'https://example.org/x', `${site.url}/hidden`]);
    const visibleLocal = await emulator.client.render('links', { url, visibleLinksOnly: true, excludeExternalLinks: true });
    assert.deepEqual(visibleLocal.kind === 'json' && visibleLocal.result, [`${site.url}/next`]);

    const scrape = await emulator.client.render('scrape', { url, elements: [{ selector: 'h1' }, { selector: 'li' }] });
    const scraped = (scrape.kind === 'json' ? scrape.result : []) as {
      selector: string;
      results: { text: string; html: string; width: number; height: number }[];
    }[];
    assert.deepEqual(
      scraped.map((s) => [s.selector, s.results.map((r) => r.text)]),
      [
        ['h1', ['Title']],
        ['li', ['one', 'two']],
      ],
    );
    assert.ok(scraped[0]!.results[0]!.width > 0 && scraped[0]!.results[0]!.height > 0);

    const snapshot = await emulator.client.render('snapshot', { url, viewport: { width: 320, height: 200 } });
    const result = (snapshot.kind === 'json' ? snapshot.result : {}) as { content: string; screenshot: string };
    assert.match(result.content, /<h1>Title<\/h1>/);
    assert.deepEqual(pngSize(Buffer.from(result.screenshot, 'base64')), { width: 320, height: 200 });
    const one = await emulator.post('snapshot', { url, formats: ['content'] });
    assert.equal(one.status, 400);
  });

  it('accessibilityTree answers the tree', async () => {
    const answer = await emulator.client.render('accessibilityTree', { html: '<button>Press me</button>' });
    assert.deepEqual(answer.kind === 'json' && answer.result, {
      accessibilityTree: { role: 'RootWebArea', name: '', url: 'about:blank', children: [{ role: 'button', name: 'Press me' }] },
    });
  });
});

describe('request fields', () => {
  it('sends Cloudflare’s default user agent, extra headers, cookies and basic credentials', async () => {
    site.pages.set('/who', '<p>who</p>');
    site.seen.length = 0;
    await emulator.client.render('content', {
      url: `${site.url}/who`,
      setExtraHTTPHeaders: { 'x-extra': 'yes' },
      cookies: [{ name: 'session', value: 'abc' }],
    });
    const request = site.seen.find((r) => r.path === '/who')!;
    assert.equal(
      request.headers['user-agent'],
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36',
    );
    assert.equal(request.headers['x-extra'], 'yes');
    assert.equal(request.headers['cookie'], 'session=abc');
    const custom = await emulator.client.render('content', { url: `${site.url}/who`, userAgent: 'HookbenchTest/1.0' });
    assert.equal(custom.kind, 'json');
    assert.equal(site.seen.findLast((r) => r.path === '/who')!.headers['user-agent'], 'HookbenchTest/1.0');
    const basic = await emulator.client.render('content', { url: `${site.url}/basic`, authenticate: { username: 'user', password: 'pass' } });
    assert.match(String(basic.kind === 'json' && basic.result), /authenticated/);
  });

  it('rejects resource types and patterns (reject rules first), and never loads file: subresources', async () => {
    site.pages.set('/img', `<img src="/image.png"><link rel="stylesheet" href="/style.css"><img src="file:///etc/hostname">`);
    site.seen.length = 0;
    await emulator.client.render('content', { url: `${site.url}/img`, rejectResourceTypes: ['image'] });
    assert.deepEqual(site.seen.map((r) => r.path).sort(), ['/img', '/style.css']);
    site.seen.length = 0;
    await emulator.client.render('content', { url: `${site.url}/img`, rejectRequestPattern: ['/^.*\\.(css)'] });
    assert.deepEqual(site.seen.map((r) => r.path).sort(), ['/image.png', '/img']);
    site.seen.length = 0;
    await emulator.client.render('content', { url: `${site.url}/img`, allowResourceTypes: ['document'] });
    assert.deepEqual(
      site.seen.map((r) => r.path),
      ['/img'],
    );
  });

  it('adds style and script tags after navigation, then waits for the selector they create', async () => {
    const answer = await emulator.client.render('content', {
      html: '<p id="p">text</p>',
      addStyleTag: [{ content: 'p { color: rgb(1, 2, 3); }' }],
      addScriptTag: [
        {
          content:
            "const d = document.createElement('div'); d.id = 'late'; d.textContent = getComputedStyle(document.getElementById('p')).color; setTimeout(() => document.body.append(d), 100);",
        },
      ],
      waitForSelector: { selector: '#late', timeout: 5000 },
    });
    assert.match(String(answer.kind === 'json' && answer.result), /<div id="late">rgb\(1, 2, 3\)<\/div>/);
  });

  it('times out as 422: navigation past gotoOptions.timeout, a selector that never appears, an action past actionTimeout; bestAttempt carries on', async () => {
    const slow = await emulator.post('content', { url: `${site.url}/hang`, gotoOptions: { timeout: 500 } });
    assert.equal(slow.status, 422);
    assert.equal((await json(slow)).errors[0].code, 6002);
    const selector = await emulator.post('content', { html: '<p>x</p>', waitForSelector: { selector: '#never', timeout: 300 } });
    assert.equal(selector.status, 422);
    const best = await emulator.post('content', { html: '<p>x</p>', waitForSelector: { selector: '#never', timeout: 300 }, bestAttempt: true });
    assert.equal(best.status, 200);
    const action = await emulator.post('pdf', { html: `<div style="height:20000px">${'<p>page</p>'.repeat(2000)}</div>`, actionTimeout: 1 });
    assert.equal(action.status, 422);
    assert.match((await json(action)).errors[0].message, /actionTimeout/);
  });

  it('reports an unreachable site with a 5000-range code', async () => {
    const closed = await startSite(Buffer.alloc(0));
    const url = closed.url;
    await closed.close();
    const response = await emulator.post('screenshot', { url });
    assert.equal(response.status, 422);
    assert.equal((await json(response)).errors[0].code, 5008);
  });
});

describe('networkidle for html, and cookies Chromium would refuse', () => {
  const style = () => ({
    content: `@font-face { font-family: 'Injected'; src: url(data:font/ttf;base64,${fs.readFileSync(FONT_FILE).toString('base64')}) format('truetype'); } body { font-family: 'Injected', serif; }`,
  });
  const idle = (waitUntil: string) => ({ timeout: 5_000, waitUntil });

  it('waits for networkidle0/2 after html on a spare page opened ahead and idle since, instead of timing out', async (t) => {
    // An emulator of its own, on a watched Chromium: the test sees the pages it opens ahead.
    const watched = watchedChromium();
    const own = await startEmulator({ bodyLimit: 1024 * 1024, executablePath: watched.executablePath });
    t.after(() => own.stop());
    await own.client.render('screenshot', { html: '<p>warm</p>' });
    const targets = await watched.watch();
    t.after(() => targets.close());
    await targets.until(() => targets.spares().length >= 1, 'a page opened ahead');
    // Chromium's idleness detector fires a fresh page's networkIdle once, 0.5–1 s after it opens;
    // once the spare has reached it, it has spent it.
    await Promise.all(targets.spares().map((spare) => targets.networkIdle(spare)));
    const html = '<h1 id="total">Invoice 1042</h1><p>Paid</p>';
    const shot = await own.post('screenshot', {
      html,
      selector: '#total',
      screenshotOptions: { type: 'webp' },
      addStyleTag: [style()],
      gotoOptions: idle('networkidle0'),
    });
    assert.equal(shot.status, 200, await shot.clone().text());
    const bytes = Buffer.from(await shot.arrayBuffer());
    assert.equal(`${bytes.subarray(0, 4).toString('latin1')}${bytes.subarray(8, 12).toString('latin1')}`, 'RIFFWEBP');
    await targets.until(() => targets.spares().length >= 1, 'a page opened ahead again');
    const snapshot = await own.post('snapshot', { html, screenshotOptions: { fullPage: true }, addStyleTag: [style()], gotoOptions: idle('networkidle2') });
    assert.equal(snapshot.status, 200, await snapshot.clone().text());
  });

  it('answers 400 naming the field for a sourceScheme that contradicts a Secure cookie, or a sourcePort out of range', async () => {
    const refused = async (cookie: Record<string, unknown>) => {
      const answer = await emulator.post('content', { url: `${site.url}/who`, cookies: [{ name: 'a', value: 'b', ...cookie }] });
      return { status: answer.status, message: ((await answer.json()) as { errors: { message: string }[] }).errors[0]?.message };
    };
    const https = await refused({ url: 'https://example.com/', sourceScheme: 'NonSecure' });
    assert.equal(https.status, 400);
    assert.match(https.message!, /^cookies\[0\]\.sourceScheme: "NonSecure" contradicts its https url/);
    assert.match(
      (await refused({ domain: 'example.com', secure: true, sourceScheme: 'NonSecure' })).message!,
      /^cookies\[0\]\.sourceScheme: "NonSecure" contradicts secure: true/,
    );
    assert.match((await refused({ url: 'https://example.com/', sourcePort: 70_000 })).message!, /^cookies\[0\]\.sourcePort: /);
    assert.equal((await refused({ url: 'http://example.com/', sourceScheme: 'NonSecure' })).status, 200);
  });
});
