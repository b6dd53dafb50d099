// Fonts that did not draw the page are said, with why: never a silent fallback.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { explainFontFailure, fontFailures, fontFailureText } from '../../../../src/core/browserRendering/fontWarnings';
import type { RenderedElement } from '../../../../src/core/browserRendering/previewProtocol';

const FONT = fs.readFileSync('/usr/share/fonts/truetype/freefont/FreeMono.ttf');
const drawn = (selector: string, requested: string[], fonts: [string, string | null, number][]): RenderedElement => ({
  selector,
  text: selector,
  requested,
  fonts: fonts.map(([family, requestedAs, glyphs]) => ({ family, custom: false, glyphs, requestedAs })),
  fallback: true,
});
const fellBack = [
  drawn('h1', ['Brand', 'sans-serif'], [['Liberation Sans', 'sans-serif', 5]]),
  drawn(
    'p',
    ['Brand', 'sans-serif'],
    [
      ['Liberation Sans', 'sans-serif', 3],
      ['WenQuanYi Zen Hei', 'sans-serif', 9],
    ],
  ),
];

describe('font failures in a report', () => {
  it('a web font that failed, with what drew its text instead (most glyphs first)', () => {
    const failures = fontFailures({ elements: fellBack, webFonts: [{ family: 'Brand', status: 'error' }] }, 'Brand');
    assert.deepEqual(failures, [{ family: 'Brand', kind: 'failed', drawnWith: ['WenQuanYi Zen Hei', 'Liberation Sans'] }]);
    assert.equal(fontFailureText(failures[0]!, 'HTTP 404'), "Font 'Brand' did not load: HTTP 404; the text was drawn with WenQuanYi Zen Hei, Liberation Sans.");
  });

  it('one still loading when the capture was taken', () => {
    const [failure] = fontFailures({ elements: fellBack, webFonts: [{ family: 'Brand', status: 'loading' }], fontsReady: 'timeout' });
    assert.match(fontFailureText(failure!), /^Font 'Brand' was still loading when the capture was taken; the text was drawn with/);
  });

  it('a chosen family that drew none of the text, as when it is not installed here', () => {
    const elements = [drawn('p', ['Georgia', 'serif'], [['DejaVu Serif', 'serif', 4]])];
    const [failure] = fontFailures({ elements, webFonts: [] }, 'Georgia');
    assert.equal(
      fontFailureText(failure!),
      "Font 'Georgia' drew none of the text (it is not installed here, or has none of its characters); the text was drawn with DejaVu Serif.",
    );
  });

  it('nothing when the fonts drew what asked for them, or a family has one face loaded', () => {
    const elements = [drawn('p', ['Brand', 'sans-serif'], [['Brand', 'Brand', 4]])];
    assert.deepEqual(
      fontFailures(
        {
          elements,
          webFonts: [
            { family: 'Brand', status: 'loaded' },
            { family: 'Brand', status: 'error' },
          ],
        },
        'Brand',
      ),
      [],
    );
    assert.deepEqual(fontFailures({ elements, webFonts: [{ family: 'Unused', status: 'unloaded' }] }, 'Brand'), []);
  });
});

describe('why a custom font did not load', () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/font.ttf') return void res.writeHead(200, { 'content-type': 'font/ttf', 'access-control-allow-origin': '*' }).end(FONT);
      if (req.url === '/no-cors.ttf') return void res.writeHead(200, { 'content-type': 'font/ttf' }).end(FONT);
      if (req.url === '/page.ttf') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>sign in</p>');
      res.writeHead(404, 'Not Found').end('missing');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a URL that answers an HTTP error', async () => {
    assert.equal(await explainFontFailure({ url: `${base}/missing.woff2` }, fetch), `${base}/missing.woff2 answered HTTP 404 Not Found`);
  });

  it('a URL that answers something other than a font', async () => {
    assert.equal(await explainFontFailure({ url: `${base}/page.ttf` }, fetch), `${base}/page.ttf is not a font (text/html, starting "<!doctype ht")`);
  });

  it('a font from another origin without CORS', async () => {
    assert.match(await explainFontFailure({ url: `${base}/no-cors.ttf` }, fetch), /has no Access-Control-Allow-Origin header/);
  });

  it('a URL nothing answers', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/font.woff2`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.match(await explainFontFailure({ url }, fetch), /could not be fetched \(connect ECONNREFUSED/);
  });

  it('a file that is not a font, and one the browser refused although it looks like one', async () => {
    assert.equal(
      await explainFontFailure({ bytes: Buffer.from('<html>'), fileName: 'brand.ttf' }, fetch),
      'brand.ttf is not a font (it does not start like a WOFF2, WOFF, TrueType or OpenType file, but with "<html>")',
    );
    assert.match(await explainFontFailure({ bytes: FONT.subarray(0, 64), fileName: 'cut.ttf' }, fetch), /font checker refused cut\.ttf/);
    assert.match(await explainFontFailure({ url: `${base}/font.ttf` }, fetch), /font checker refused/);
  });
});
