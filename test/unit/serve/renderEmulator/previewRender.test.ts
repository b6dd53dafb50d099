// The preview's render against the real emulator: fonts that fail are warnings at the top with
// the reason, a font file that is not a font is refused, and each font is reported once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { FontFaceError } from '../../../../src/core/browserRendering/fontFace';
import { DEFAULT_PREVIEW_FORM } from '../../../../src/core/browserRendering/previewForm';
import type { PreviewForm } from '../../../../src/core/browserRendering/previewProtocol';
import { previewRequest, renderPreview } from '../../../../src/core/browserRendering/previewRender';
import type { RenderClientError } from '../../../../src/core/browserRendering/client';
import { byFamily } from '../../../../src/serve/renderEmulator/fontReport';
import { FONT_FILE, startEmulator, startSite, type Emulator, type Site } from './fixtures';

let emulator: Emulator;
let site: Site;
before(async () => {
  emulator = await startEmulator();
  site = await startSite(fs.readFileSync(FONT_FILE));
});
after(async () => {
  await emulator.stop();
  await site.close();
});

const FORM: PreviewForm = { ...DEFAULT_PREVIEW_FORM, html: '<h1>Invoice</h1><p>Thanks <b>again</b> 谢谢</p>', width: 600, height: 200 };
const options = { fontReport: true, fetch };

describe('the preview render', () => {
  it('a custom font URL that 404s is a warning naming the status and what drew the text', async () => {
    const { message } = await renderPreview(
      emulator.client,
      { ...FORM, font: 'custom', customFamily: 'Brand', customSource: { kind: 'url', url: `${site.url}/fonts/brand.woff2` } },
      options,
    );
    assert.equal(message.contentType, 'image/png');
    assert.deepEqual(message.warnings, [
      `Font 'Brand' did not load: ${site.url}/fonts/brand.woff2 answered HTTP 404 Not Found; the text was drawn with Liberation Sans, WenQuanYi Zen Hei.`,
    ]);
  });

  it('an installed family that is not here is a warning too', async () => {
    const { message } = await renderPreview(emulator.client, { ...FORM, font: 'Georgia', fallback: 'serif' }, options);
    assert.equal(message.warnings.length, 1);
    assert.match(message.warnings[0]!, /^Font 'Georgia' drew none of the text .*; the text was drawn with Liberation Serif/);
  });

  it('a font that loads gives no warning', async () => {
    const { message } = await renderPreview(
      emulator.client,
      { ...FORM, font: 'custom', customFamily: 'Brand', customSource: { kind: 'url', url: `${site.url}/slow-font?ms=0` } },
      options,
    );
    assert.deepEqual(message.warnings, []);
    assert.ok(message.report!.fonts.some((f) => f.family === 'FreeMono' && f.custom));
  });

  it('a font file that is not a font is refused before the emulator is asked', async () => {
    const bytes = Buffer.from('<!doctype html><title>not a font</title>');
    await assert.rejects(
      renderPreview(
        emulator.client,
        { ...FORM, font: 'custom', customFamily: 'Brand', customSource: { kind: 'file', path: '/tmp/brand.ttf', name: 'brand.ttf' } },
        { ...options, fontBytes: bytes },
      ),
      (error: Error) =>
        error instanceof FontFaceError &&
        /^brand\.ttf is not a font: it does not start like a WOFF2, WOFF, TrueType or OpenType file \(its first bytes are 3c 21 64 6f/.test(error.message),
    );
  });

  it('reports each family once: per element (regular and bold faces are one entry) and overall', async () => {
    const { message } = await renderPreview(emulator.client, FORM, options);
    const p = message.report!.elements.find((e) => e.selector.endsWith('p'))!;
    const families = p.fonts.map((f) => f.family);
    assert.deepEqual(families, [...new Set(families)], `one entry per family: ${JSON.stringify(p.fonts)}`);
    const fonts = message.report!.fonts.map((f) => f.family);
    assert.deepEqual(fonts, [...new Set(fonts)]);
    const serif = message.report!.fonts.find((f) => f.family === 'Liberation Serif')!;
    assert.deepEqual(
      serif.elements.map((e) => e.selector),
      ['html > body > h1', 'html > body > p', 'html > body > p > b'],
    );
  });

  it('takes the capture and the font report from one page: the page loads once, and the capture is what /screenshot answers', async () => {
    const html = `<h1>Invoice</h1><img src="${site.url}/image.png?one-page">`;
    const before = site.seen.length;
    const { bytes, contentType, message } = await renderPreview(emulator.client, { ...FORM, html }, options);
    assert.equal(site.seen.slice(before).filter((seen) => seen.path === '/image.png').length, 1, 'one page, one context');
    assert.equal(contentType, 'image/png');
    assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [600, 200]);
    assert.ok(
      message.report?.elements.some((e) => e.text === 'Invoice'),
      JSON.stringify(message.report),
    );
    assert.equal(message.reportError, undefined);
    // The same body through the endpoint itself gives the same pixels (the marking for the report
    // comes after). Text only: an image still loading at DOMContentLoaded (the default waitUntil,
    // as on Cloudflare) may or may not be drawn, so the page above could differ between two loads.
    const withReport = await renderPreview(emulator.client, FORM, options);
    const alone = await emulator.client.render('screenshot', previewRequest(FORM).body);
    assert.ok(alone.kind === 'binary');
    assert.equal(Buffer.compare(alone.bytes, withReport.bytes), 0, 'the same image as /screenshot');
  });

  it('a PDF comes from the same request, with its report', async () => {
    const { bytes, contentType, message } = await renderPreview(emulator.client, { ...FORM, endpoint: 'pdf' }, options);
    assert.equal(contentType, 'application/pdf');
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok((message.report?.elements.length ?? 0) > 0);
  });

  it('a page that cannot load fails with what the capture endpoint says', async () => {
    const closed = await startSite(Buffer.alloc(0));
    await closed.close();
    await assert.rejects(renderPreview(emulator.client, { ...FORM, source: 'url', url: closed.url }, options), /net::ERR_CONNECTION_REFUSED/);
  });

  it('the font report refuses a capture it does not take, naming it', async () => {
    await assert.rejects(
      emulator.client.fontReportWithCapture({ html: '<p>x</p>' }, 'content' as 'pdf'),
      (error: RenderClientError) => error.status === 400 && /^capture: screenshot or pdf, not "content"/.test(error.message),
    );
  });
});

describe('the emulator’s platform fonts by family', () => {
  it('merges the faces of a family, glyphs added up, the face with most glyphs first', () => {
    const merged = byFamily([
      { familyName: 'Liberation Sans', postScriptName: 'LiberationSans', isCustomFont: false, glyphCount: 7 },
      { familyName: 'WenQuanYi Zen Hei', postScriptName: 'WenQuanYiZenHei', isCustomFont: false, glyphCount: 2 },
      { familyName: 'Liberation Sans', postScriptName: 'LiberationSans-Bold', isCustomFont: false, glyphCount: 9 },
      { familyName: 'Liberation Sans', postScriptName: 'LiberationSans', isCustomFont: true, glyphCount: 1 },
    ]);
    assert.deepEqual(merged, [
      { familyName: 'Liberation Sans', isCustomFont: false, glyphCount: 16, faces: ['LiberationSans-Bold', 'LiberationSans'] },
      { familyName: 'WenQuanYi Zen Hei', isCustomFont: false, glyphCount: 2, faces: ['WenQuanYiZenHei'] },
      { familyName: 'Liberation Sans', isCustomFont: true, glyphCount: 1, faces: ['LiberationSans'] },
    ]);
  });
});
