import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { catalogWith, FONT_CATALOG, fontPackages } from '../../../../src/core/browserRendering/fontCatalog';
import { fontFaceCss, fontSrc, sniffFontFormat } from '../../../../src/core/browserRendering/fontFace';

describe('font catalog', () => {
  it('lists every group of Cloudflare’s installed fonts', () => {
    const groups = new Set(FONT_CATALOG.map((f) => f.group));
    assert.deepEqual([...groups].sort(), ['common', 'generic', 'international', 'open']);
    assert.ok(FONT_CATALOG.some((f) => f.family === 'Noto Color Emoji'));
  });

  it('names the Debian packages that reproduce the set, and none for what Debian cannot provide', () => {
    const packages = fontPackages();
    for (const p of ['fonts-noto-cjk', 'fonts-noto-color-emoji', 'fonts-thai-tlwg', 'fonts-kacst', 'fonts-liberation', 'fonts-dejavu'])
      assert.ok(packages.includes(p), p);
    assert.equal(FONT_CATALOG.find((f) => f.name === 'Lucida Handwriting')!.debianPackage, undefined);
  });

  it('is what the set-up step installs', async () => {
    const setup = (await import(path.resolve('scripts/lib/setup.mjs'))) as { FONT_PACKAGES: string[]; DEBIAN_PACKAGES: string[] };
    assert.deepEqual([...setup.FONT_PACKAGES].sort(), fontPackages());
    for (const p of fontPackages()) assert.ok(setup.DEBIAN_PACKAGES.includes(p), p);
  });

  it('every package-backed family is installed on this machine (the set-up step ran)', () => {
    const families = execFileSync('fc-list', [':', 'family'], { encoding: 'utf8' }).split('\n');
    const missing = catalogWith(families).filter((f) => f.debianPackage && !f.installed && f.debianPackage !== 'fonts-urw-base35');
    assert.deepEqual(
      missing.map((f) => f.family),
      [],
    );
  });

  it('marks what fontconfig reports as installed, localized names included', () => {
    const entries = catalogWith(['DejaVu Sans', 'Noto Sans CJK SC,Noto Sans CJK SC Regular', 'liberation serif']);
    const installed = (name: string) => entries.find((e) => e.family === name)!.installed;
    assert.equal(installed('DejaVu Sans'), true);
    assert.equal(installed('Noto Sans CJK SC'), true);
    assert.equal(installed('Liberation Serif'), true);
    assert.equal(installed('Roboto'), false);
    assert.equal(installed('serif'), true, 'generic families are always there');
  });
});

describe('@font-face for addStyleTag', () => {
  const woff2 = Buffer.concat([Buffer.from('wOF2'), Buffer.alloc(12, 1)]);
  const ttf = Buffer.concat([Buffer.from([0, 1, 0, 0]), Buffer.alloc(12, 2)]);

  it('builds the seed’s shape from a URL: the face, then the body rule with a generic fallback', () => {
    assert.equal(
      fontFaceCss({ family: 'CustomFont', source: { url: 'https://cdn.example.com/fonts/MyFont.woff2' } }),
      "@font-face { font-family: 'CustomFont'; src: url('https://cdn.example.com/fonts/MyFont.woff2') format('woff2'); font-weight: normal; font-style: normal; font-display: block; } body { font-family: 'CustomFont', sans-serif; }",
    );
  });

  it('embeds bytes as a data URL with the MIME type and format of what they are, not what they are called', () => {
    assert.equal(fontSrc({ bytes: woff2, fileName: 'wrong.ttf' }), `url('data:font/woff2;base64,${woff2.toString('base64')}') format('woff2')`);
    assert.match(fontSrc({ bytes: ttf }), /^url\('data:font\/ttf;base64,[A-Za-z0-9+/=]+'\) format\('truetype'\)$/);
    assert.equal(sniffFontFormat(Buffer.from('OTTO1234')), 'opentype');
    assert.throws(() => fontSrc({ bytes: Buffer.from('<html>'), fileName: 'font.txt' }), /not a WOFF2, WOFF, TrueType or OpenType font/);
  });

  it('takes weight, style, fallback and display', () => {
    const css = fontFaceCss({ family: 'Brand', source: { url: 'https://x.test/b.ttf' }, weight: '700', style: 'italic', fallback: 'serif', display: 'swap' });
    assert.match(css, /src: url\('https:\/\/x\.test\/b\.ttf'\) format\('truetype'\); font-weight: 700; font-style: italic; font-display: swap;/);
    assert.match(css, /body \{ font-family: 'Brand', serif; \}$/);
  });

  it('refuses names, weights and URLs that would break out of the CSS', () => {
    assert.throws(() => fontFaceCss({ family: 'x; } body { color: red', source: { url: 'https://x.test/a.woff2' } }), /family name/);
    assert.throws(() => fontFaceCss({ family: 'Ok', source: { url: 'https://x.test/a.woff2' }, weight: 'bold; color: red' }), /font-weight/);
    assert.throws(() => fontFaceCss({ family: 'Ok', source: { url: 'javascript:alert(1)' } }), /http\(s\) or data/);
    assert.match(
      fontFaceCss({ family: "O'Brien Sans", source: { url: "https://x.test/it's.woff2" } }),
      /font-family: 'O\\'Brien Sans'; src: url\('https:\/\/x\.test\/it\\'s\.woff2'\)/,
    );
  });
});
