// The preview's render against the real emulator: fonts that fail are warnings at the top with
// the reason, a font file that is not a font is refused, and each font is reported once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { FontFaceError } from '../../../../src/core/render/fontFace';
import { DEFAULT_PREVIEW_FORM } from '../../../../src/core/render/previewForm';
import type { PreviewForm } from '../../../../src/core/render/previewProtocol';
import { renderPreview } from '../../../../src/core/render/previewRender';
import { byFamily } from '../../../../src/server/render/fontReport';
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
    const { message } = await renderPreview(emulator.client, { ...FORM, font: 'custom', customFamily: 'Brand', customSource: { kind: 'url', url: `${site.url}/fonts/brand.woff2` } }, options);
    assert.equal(message.contentType, 'image/png');
    assert.deepEqual(message.warnings, [`Font 'Brand' did not load: ${site.url}/fonts/brand.woff2 answered HTTP 404 Not Found; the text was drawn with Liberation Sans, WenQuanYi Zen Hei.`]);
  });

  it('an installed family that is not here is a warning too', async () => {
    const { message } = await renderPreview(emulator.client, { ...FORM, font: 'Georgia', fallback: 'serif' }, options);
    assert.equal(message.warnings.length, 1);
    assert.match(message.warnings[0]!, /^Font 'Georgia' drew none of the text .*; the text was drawn with Liberation Serif/);
  });

  it('a font that loads gives no warning', async () => {
    const { message } = await renderPreview(emulator.client, { ...FORM, font: 'custom', customFamily: 'Brand', customSource: { kind: 'url', url: `${site.url}/slow-font?ms=0` } }, options);
    assert.deepEqual(message.warnings, []);
    assert.ok(message.report!.fonts.some((f) => f.family === 'FreeMono' && f.custom));
  });

  it('a font file that is not a font is refused before the emulator is asked', async () => {
    const bytes = Buffer.from('<!doctype html><title>not a font</title>');
    await assert.rejects(
      renderPreview(emulator.client, { ...FORM, font: 'custom', customFamily: 'Brand', customSource: { kind: 'file', path: '/tmp/brand.ttf', name: 'brand.ttf' } }, { ...options, fontBytes: bytes }),
      (error: Error) => error instanceof FontFaceError && /^brand\.ttf is not a font: it does not start like a WOFF2, WOFF, TrueType or OpenType file \(its first bytes are 3c 21 64 6f/.test(error.message),
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
    assert.deepEqual(serif.elements.map((e) => e.selector), ['html > body > h1', 'html > body > p', 'html > body > p > b']);
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
