// Fonts, the point of the render preview: an injected font is really used (the report says so
// and the pixels change), the PDF embeds it, each script is drawn by the installed family Debian's
// packages give it, and captures wait for document.fonts.ready unless told not to.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { inflateSync } from 'node:zlib';
import { fontFaceCss } from '../../../../src/core/browserRendering/fontFace';
import type { FontReport } from '../../../../src/core/browserRendering/fontReportAnswer';
import { FONT_FILE, startEmulator, startSite, type Emulator, type Site } from './fixtures';

let emulator: Emulator;
let site: Site;
const fontBytes = fs.readFileSync(FONT_FILE);
before(async () => {
  emulator = await startEmulator();
  site = await startSite(fontBytes);
});
after(async () => {
  await emulator.stop();
  await site.close();
});

type Report = FontReport & { fontsReady: string };
const TEXT = '<body style="margin:8px"><p id="t" style="font-size:40px">Hookbench renders 0123</p></body>';
const injected = fontFaceCss({ family: 'Injected Mono', source: { bytes: fontBytes, fileName: 'FreeMono.ttf' } });

async function screenshot(body: Record<string, unknown>): Promise<Buffer> {
  const answer = await emulator.client.render('screenshot', { viewport: { width: 700, height: 80 }, ...body });
  assert.equal(answer.kind, 'binary');
  return answer.kind === 'binary' ? answer.bytes : Buffer.alloc(0);
}

/** The text of a PDF's font dictionaries, streams inflated, so embedded font names can be found. */
function pdfText(pdf: Buffer): string {
  let text = pdf.toString('latin1');
  for (const match of text.matchAll(/stream\r?\n/g)) {
    const start = match.index! + match[0].length;
    const end = text.indexOf('endstream', start);
    try {
      text += inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      // not a deflated stream
    }
  }
  return text;
}

describe('custom fonts through addStyleTag', () => {
  it('a base64 font is used: the report names it as a custom font for the element, and the pixels differ from the fallback', async () => {
    const report = await emulator.client.fontReport<Report>({ html: TEXT, addStyleTag: [{ content: injected }] });
    const p = report.elements.find((e) => e.selector.endsWith('#t'))!;
    assert.deepEqual(p.requested, ['Injected Mono', 'sans-serif']);
    assert.deepEqual(
      p.fonts.map((f) => [f.family, f.custom, f.requestedAs]),
      [['FreeMono', true, 'Injected Mono']],
    );
    assert.equal(p.fallback, false);
    assert.deepEqual(report.webFonts, [{ family: 'Injected Mono', status: 'loaded' }]);
    assert.equal(report.fontsReady, 'ready');

    const withFont = await screenshot({ html: TEXT, addStyleTag: [{ content: injected }] });
    const fallback = await screenshot({ html: TEXT });
    const again = await screenshot({ html: TEXT, addStyleTag: [{ content: injected }] });
    assert.notDeepEqual(withFont, fallback);
    assert.deepEqual(withFont, again, 'the same request renders the same pixels');
  });

  it('a family that is not there is flagged as a fallback, naming what drew the text', async () => {
    const report = await emulator.client.fontReport<Report>({ html: '<p style="font-family: \'No Such Font\', sans-serif">fallback</p>' });
    const [p] = report.elements;
    assert.equal(p!.fallback, true);
    assert.deepEqual(p!.requested, ['No Such Font', 'sans-serif']);
    assert.deepEqual(
      p!.fonts.map((f) => [f.family, f.requestedAs]),
      [['Liberation Sans', 'sans-serif']],
    );
  });

  it('a Microsoft font Debian cannot install is drawn by its metric-compatible stand-in, and says so', async () => {
    const report = await emulator.client.fontReport<Report>({ html: '<p>default</p><p style="font-family: Arial">arial</p>' });
    const fonts = (text: string) => report.elements.find((e) => e.text === text)!;
    assert.deepEqual(fonts('default').requested, ['Times New Roman']);
    assert.deepEqual(
      fonts('default').fonts.map((f) => [f.family, f.requestedAs, f.standIn]),
      [['Liberation Serif', 'Times New Roman', true]],
    );
    assert.equal(fonts('default').fallback, false);
    assert.deepEqual(
      fonts('arial').fonts.map((f) => [f.family, f.requestedAs, f.standIn]),
      [['Liberation Sans', 'Arial', true]],
    );
  });

  it('the PDF embeds the injected font', async () => {
    const answer = await emulator.client.render('pdf', { html: TEXT, addStyleTag: [{ content: injected }] });
    assert.equal(answer.kind, 'binary');
    const text = pdfText(answer.kind === 'binary' ? answer.bytes : Buffer.alloc(0));
    assert.match(text, /\/FontName \/[A-Z]{6}\+FreeMono/);
    const plain = await emulator.client.render('pdf', { html: TEXT });
    assert.doesNotMatch(pdfText(plain.kind === 'binary' ? plain.bytes : Buffer.alloc(0)), /FreeMono/);
  });
});

describe('installed families per script (Debian packages reproducing the service)', () => {
  it('CJK, Arabic, Thai and emoji are drawn by the expected installed families', async () => {
    const html =
      '<p lang="zh">你好世界</p><p lang="ja">こんにちは</p><p lang="ko">안녕하세요</p><p lang="ar" dir="rtl">مرحبا بالعالم</p><p lang="ar" style="font-family: KacstBook">مرحبا</p><p lang="th">สวัสดีชาวโลก</p><p>😀🎉</p>';
    const report = await emulator.client.fontReport<Report>({ html });
    const families = (text: string) => report.elements.find((e) => e.text === text)!.fonts.map((f) => f.family);
    assert.deepEqual(families('你好世界'), ['Noto Sans CJK SC']);
    assert.deepEqual(families('こんにちは'), ['Noto Sans CJK JP']);
    assert.deepEqual(families('안녕하세요'), ['Noto Sans CJK KR']);
    assert.ok(families('مرحبا بالعالم').some((f) => f === 'DejaVu Sans' || f.startsWith('Kacst')));
    assert.deepEqual(families('مرحبا'), ['KacstBook']);
    const thai = ['Garuda', 'Kinnari', 'Laksaman', 'Loma', 'Norasi', 'Purisa', 'Sawasdee', 'Umpush', 'Waree'];
    assert.ok(
      families('สวัสดีชาวโลก').every((f) => thai.includes(f)),
      `Thai drawn by ${families('สวัสดีชาวโลก').join(', ')}`,
    );
    assert.deepEqual(families('😀🎉'), ['Noto Color Emoji']);
  });
});

describe('when captures wait for fonts', () => {
  const slowFont = (ms: number) => ({
    html: TEXT,
    addStyleTag: [
      {
        content: `@font-face { font-family: 'Slow'; src: url('${site.url}/slow-font?ms=${ms}') format('truetype'); font-display: swap; } body { font-family: 'Slow', sans-serif; }`,
      },
    ],
  });

  it('waits for document.fonts.ready by default, so a font still downloading after navigation is drawn', async () => {
    const report = await emulator.client.fontReport<Report>(slowFont(800));
    assert.equal(report.fontsReady, 'ready');
    assert.deepEqual(
      report.elements[0]!.fonts.map((f) => [f.family, f.custom]),
      [['FreeMono', true]],
    );
  });

  it('with X-Hookbench-Wait-For-Fonts: false captures at once, as Puppeteer’s screenshot does: the fallback draws', async () => {
    const report = await emulator.client.fontReport<Report>(slowFont(1500), { waitForFonts: false });
    assert.equal(report.fontsReady, 'skipped');
    assert.deepEqual(
      report.elements[0]!.fonts.map((f) => [f.family, f.custom]),
      [['Liberation Sans', false]],
    );
    assert.equal(report.elements[0]!.fallback, true);
  });
});
