// The render emulator against raw puppeteer on the same small page at 1280×720, in the same run:
// single requests a user makes (≥ 300 ms apart) against raw puppeteer screenshotting from a fresh
// context it prepared ahead; back to back against raw puppeteer creating a fresh context per
// request; 8 concurrent requests (throughput) against raw puppeteer doing the same 8 at once with a
// fresh context per render; launching Chromium per request, for scale; and memory after 500
// renders against memory after the first 20.
import * as fs from 'node:fs';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { RenderClient } from '../src/core/browserRendering/client';
import { lineLogger } from '../src/core/log';
import { findChromium, launchArgs } from '../src/serve/renderEmulator/browserPool';
import { RenderServer } from '../src/serve/renderEmulator/renderServer';
import { processTree } from '../test/unit/helpers/procfs';
import { QUICK, report, type BenchResult } from './harness';

const HTML = '<body style="font-family: sans-serif"><h1>Invoice 1042</h1><p>Thank you for your order.</p><ul><li>One widget</li><li>Two gadgets</li></ul></body>';
const VIEWPORT = { width: 1280, height: 720 };
const BODY = { html: HTML, viewport: VIEWPORT };
/** The pause between single requests: a person pressing Render. */
const PAUSE_MS = 300;
/** Pages rendering at once: the emulator's default. */
const POOL_PAGES = 4;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** What a script without a warm browser does: launch, render, close. */
async function coldScreenshot(): Promise<void> {
  const browser = await puppeteer.launch({ executablePath: findChromium(), headless: true, args: RAW_ARGS });
  try {
    const page = await browser.newPage();
    await page.setViewport(VIEWPORT);
    await page.setContent(HTML, { waitUntil: 'domcontentloaded' });
    await page.screenshot();
  } finally {
    await browser.close();
  }
}

/** The emulator's own Chromium flags: the baselines differ from it only in what puppeteer is asked. */
const RAW_ARGS = launchArgs();

/** Raw puppeteer on a warm browser of its own: a fresh context per screenshot, as the emulator gives. */
class RawPuppeteer {
  #next: Promise<{ context: BrowserContext; page: Page }> | undefined;
  private constructor(private readonly browser: Browser) {}

  static async launch(): Promise<RawPuppeteer> {
    return new RawPuppeteer(await puppeteer.launch({ executablePath: findChromium(), headless: true, args: RAW_ARGS }));
  }

  async #fresh(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await this.browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport(VIEWPORT);
    return { context, page };
  }

  /** Opens the next context and page ahead of time, ready when this resolves (the pre-warmed baseline). */
  async prepare(): Promise<void> {
    this.#next = this.#fresh();
    await this.#next;
  }

  /** One screenshot from the prepared context and page; closing it is left to `closePrepared`, untimed. */
  async prewarmedScreenshot(): Promise<void> {
    const { page } = await this.#next!;
    await page.setContent(HTML, { waitUntil: 'domcontentloaded' });
    await page.screenshot();
  }

  async closePrepared(): Promise<void> {
    const prepared = await this.#next;
    this.#next = undefined;
    await prepared?.context.close();
  }

  /** One screenshot from a context created for it and closed after it, as a script does back to back. */
  async freshScreenshot(): Promise<void> {
    const { context, page } = await this.#fresh();
    try {
      await page.setContent(HTML, { waitUntil: 'domcontentloaded' });
      await page.screenshot();
    } finally {
      await context.close();
    }
  }

  close(): Promise<void> {
    return this.browser.close();
  }
}

/** Renders per second for `rounds` rounds of `width` at once, and each render's time. */
async function concurrently(work: () => Promise<unknown>, rounds: number, width: number): Promise<{ rate: number; times: number[] }> {
  const times: number[] = [];
  const started = performance.now();
  for (let round = 0; round < rounds; round++) times.push(...(await Promise.all(Array.from({ length: width }, () => timed(work)))));
  return { rate: (rounds * width) / ((performance.now() - started) / 1000), times };
}

/** Resident memory (MiB) of this process plus every Chromium process of the pool. */
/** Resident memory of this process and every process below it (the emulator's Chromium), in MiB. */
function residentMiB(): number {
  let kib = 0;
  for (const pid of processTree(process.pid)) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return kib / 1024;
}

async function main(): Promise<void> {
  // Chromium's launches, counted from the emulator's log (one line each).
  let launches = 0;
  const logger = lineLogger((line) => void (/\[render\] Chromium .* started in/.test(line) && launches++), 'info');
  const server = new RenderServer({ host: '127.0.0.1', port: 0, token: 'bench', logger, ratePerSecond: 0, concurrency: POOL_PAGES });
  const client = new RenderClient({ baseUrl: await server.listen(), accountId: 'bench', token: 'bench' });
  const shot = () => client.render('screenshot', BODY);
  const raw = await RawPuppeteer.launch();
  for (let i = 0; i < 5; i++) {
    await shot();
    await raw.freshScreenshot();
  }

  // Interleaved, so both see the same machine.
  const single: number[] = [];
  const rawPrewarmed: number[] = [];
  const back: number[] = [];
  const rawBack: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < 20; i++) {
    await pause(PAUSE_MS);
    single.push(await timed(shot));
    await raw.prepare();
    await pause(PAUSE_MS);
    rawPrewarmed.push(await timed(() => raw.prewarmedScreenshot()));
    await raw.closePrepared();
    for (let j = 0; j < 3; j++) {
      back.push(await timed(shot));
      rawBack.push(await timed(() => raw.freshScreenshot()));
    }
    if (i % 4 === 0) cold.push(await timed(coldScreenshot));
  }

  // 8 at once, the emulator and raw puppeteer (a fresh context per render, all 8 at once, as a
  // script does) taking turns by round, so both see the same machine.
  const eight: number[] = [];
  const rawEight: number[] = [];
  let emulatorSeconds = 0;
  let rawSeconds = 0;
  for (let round = 0; round < 4; round++) {
    await pause(PAUSE_MS);
    const emulator = await concurrently(shot, 1, 8);
    eight.push(...emulator.times);
    emulatorSeconds += 8 / emulator.rate;
    await pause(PAUSE_MS);
    const floor = await concurrently(() => raw.freshScreenshot(), 1, 8);
    rawEight.push(...floor.times);
    rawSeconds += 8 / floor.rate;
  }
  await raw.close();
  const concurrentRate = 32 / emulatorSeconds;
  const rawConcurrentRate = 32 / rawSeconds;

  // Quick mode leaves out the memory figure (500 renders).
  for (let i = 0; i < (QUICK ? 0 : 15); i++) await shot();
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const early = residentMiB();
  for (let i = 0; i < (QUICK ? 0 : 480); i++) await shot();
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = residentMiB();
  await server.close();

  const results: BenchResult[] = [
    {
      name: `single screenshot of a small local page (1280×720) through the emulator, ${PAUSE_MS} ms apart, p50 (ms); launches: ${launches}`,
      unit: 'ms',
      value: median(single),
      baseline: 'raw puppeteer screenshotting the same page from a fresh context it prepared ahead, p50 (ms)',
      baselineValue: median(rawPrewarmed),
      ratio: median(rawPrewarmed) / median(single),
    },
    {
      name: 'back-to-back screenshots through the emulator, p50 (ms)',
      unit: 'ms',
      value: median(back),
      baseline: 'raw puppeteer creating a fresh context per screenshot, back to back, p50 (ms)',
      baselineValue: median(rawBack),
      ratio: median(rawBack) / median(back),
    },
    {
      name: `8 concurrent screenshots (pool of ${POOL_PAGES} pages): throughput, p50 ${median(eight).toFixed(0)} ms`,
      unit: 'renders/s',
      value: concurrentRate,
      baseline: 'before issue 16 (renders/s)',
      baselineValue: 4.69,
      ratio: concurrentRate / 4.69,
    },
    {
      name: `8 concurrent screenshots through the emulator: throughput (renders/s)`,
      unit: 'renders/s',
      value: concurrentRate,
      baseline: `raw puppeteer, 8 at once, a fresh context per screenshot: throughput, p50 ${median(rawEight).toFixed(0)} ms (renders/s)`,
      baselineValue: rawConcurrentRate,
      ratio: concurrentRate / rawConcurrentRate,
    },
    {
      name: 'single screenshot through the emulator, p50 (ms)',
      unit: 'ms',
      value: median(single),
      baseline: 'launching Chromium for the request (puppeteer.launch → screenshot → close), p50 (ms)',
      baselineValue: median(cold),
      ratio: median(cold) / median(single),
    },
    {
      name: 'resident memory (this process + Chromium) after 500 renders (MiB)',
      unit: 'MiB',
      value: after,
      baseline: 'after the first 20 renders (MiB)',
      baselineValue: early,
      ratio: after / early,
    },
  ];
  report('render', results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
