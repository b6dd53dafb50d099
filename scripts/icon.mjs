// @ts-check
// `node scripts/icon.mjs`: the Marketplace icon (media/hookbench.png, 256×256) drawn by Chromium
// from the activity-bar glyph (media/hookbench.svg), white on the gallery banner's colour, so the
// two never drift apart. Run it after changing either.
import * as fs from 'node:fs';
import * as path from 'node:path';
import puppeteer from 'puppeteer-core';
import { root } from './lib/setup.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './lib/workbenchSuite.mjs';

const SIZE = 256;

/** @returns {string} */
export function iconHtml() {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const background = manifest.galleryBanner?.color ?? '#17324d';
  const glyph = fs.readFileSync(path.join(root, 'media', 'hookbench.svg'), 'utf8').replace(/width="24" height="24"/, 'width="176" height="176"');
  return `<!doctype html><html><body style="margin:0;background:transparent">
<div style="width:${SIZE}px;height:${SIZE}px;border-radius:44px;background:${background};color:#fff;display:flex;align-items:center;justify-content:center">${glyph}</div>
</body></html>`;
}

async function main() {
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: SIZE, height: SIZE, deviceScaleFactor: 1 });
    await page.setContent(iconHtml());
    const out = path.join(root, 'media', 'hookbench.png');
    await page.screenshot({ path: out, omitBackground: true, clip: { x: 0, y: 0, width: SIZE, height: SIZE } });
    console.log(`${path.relative(root, out)} (${fs.statSync(out).size} bytes)`);
  } finally {
    await browser.close();
  }
}

await main();
