// The render emulator as a user's own client sees it, against raw puppeteer on the same small page
// at 1280×720, in the same run. The emulator is `hookbench serve` in its own process, asked by a
// plain `fetch` from this one with the body Cloudflare's docs show (`html` and `viewport`, nothing
// else: `gotoOptions.waitUntil` left to its default). Series, taking turns with raw puppeteer so
// both see the same machine: 25 single requests 300 ms apart (a person pressing Render, or a
// script's loop) against raw puppeteer screenshotting from a fresh context it prepared ahead,
// ready before the pause; the same single requests on a new connection each (curl's way); back to
// back against raw puppeteer creating a fresh context per request; 8 concurrent requests
// (throughput) against raw puppeteer doing the same 8 at once with a fresh context per render;
// launching Chromium per request, for scale; and memory after 500 renders against the first 20.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { renderUrl } from '../src/core/contract/serveHandshake';
import { findChromium, launchArgs } from '../src/serve/renderEmulator/browserPool';
import { processTree } from '../test/unit/helpers/procfs';
import { QUICK, report, type BenchResult } from './harness';

const HTML =
  '<body style="font-family: sans-serif"><h1>Invoice 1042</h1><p>Thank you for your order.</p><ul><li>One widget</li><li>Two gadgets</li></ul></body>';
const VIEWPORT = { width: 1280, height: 720 };
/** What a user's client sends (Cloudflare's screenshot example with `html`): no Hookbench header, no options. */
const BODY = JSON.stringify({ html: HTML, viewport: VIEWPORT });
const TOKEN = 'bench';
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

/** `hookbench serve` in its own process, as a user starts it; its render URL once it prints it, and its Chromium launches counted from its log. */
async function startServe(): Promise<{ child: ChildProcess; base: string; launches: () => number }> {
  const cli = path.resolve(__dirname, '..', '..', 'dist', 'cli.js');
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-render-'));
  const args = [cli, 'serve', '--port', '0', '--render-port', '0', '--render-rate', '0', '--render-concurrency', String(POOL_PAGES), '--data', data];
  const child = spawn(process.execPath, args, { env: { ...process.env, HOOKBENCH_RENDER_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] });
  let launches = 0;
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
    launches += chunk.toString().match(/\[render\] Chromium .* started in/g)?.length ?? 0;
  });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = out
        .split('\n')
        .slice(0, -1)
        .map(renderUrl)
        .find((found) => found !== undefined);
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`hookbench serve exited with ${code}: ${errors}`)));
  });
  return { child, base, launches: () => launches };
}

/** One screenshot by `fetch` (undici, keep-alive), the bytes read to the end. */
async function fetchShot(url: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: BODY });
  const bytes = await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`screenshot: ${response.status} ${Buffer.from(bytes).toString().slice(0, 200)}`);
}

/** One screenshot by node:http on a connection of its own, closed after it (what curl does). */
function newConnectionShot(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(BODY)) };
    const request = http.request(url, { method: 'POST', agent: false, headers }, (response) => {
      response.resume();
      response.once('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`screenshot: ${response.statusCode}`))));
    });
    request.once('error', reject);
    request.end(BODY);
  });
}

/** `count` requests `PAUSE_MS` apart, each timed; the first follows the pause too. */
async function spaced(work: () => Promise<unknown>, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    await pause(PAUSE_MS);
    times.push(await timed(work));
  }
  return times;
}

/** `count` requests back to back: each one's time, and the series' renders a second. */
async function backToBack(work: () => Promise<unknown>, count: number): Promise<{ times: number[]; seconds: number }> {
  const started = performance.now();
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push(await timed(work));
  return { times, seconds: (performance.now() - started) / 1000 };
}

/** Resident memory of this process and every process below it (serve and its Chromium), in MiB. */
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

/** Series of 6 with the first left out: each counted request follows one of its own kind, as in a user's series. */
const SERIES = 6;
const ROUNDS = QUICK ? 3 : 5;

async function main(): Promise<void> {
  const { child, base, launches } = await startServe();
  const url = `${base}/accounts/local/browser-rendering/screenshot`;
  const shot = () => fetchShot(url);
  const raw = await RawPuppeteer.launch();
  for (let i = 0; i < 5; i++) {
    await shot();
    await raw.freshScreenshot();
  }
  const prewarmed = async () => {
    await raw.prepare();
    await pause(PAUSE_MS);
    const time = await timed(() => raw.prewarmedScreenshot());
    await raw.closePrepared();
    return time;
  };

  // Series taking turns, so both see the same machine.
  const single: number[] = [];
  const fresh: number[] = [];
  const rawPrewarmed: number[] = [];
  const back: number[] = [];
  const rawBack: number[] = [];
  let backSeconds = 0;
  let rawBackSeconds = 0;
  const cold: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    single.push(...(await spaced(shot, SERIES)).slice(1));
    for (let i = 0; i < SERIES - 1; i++) rawPrewarmed.push(await prewarmed());
    fresh.push(...(await spaced(() => newConnectionShot(url), SERIES)).slice(1));
    await pause(PAUSE_MS);
    const emulator = await backToBack(shot, 2 * SERIES);
    back.push(...emulator.times);
    backSeconds += emulator.seconds;
    await pause(PAUSE_MS);
    const floor = await backToBack(() => raw.freshScreenshot(), 2 * SERIES);
    rawBack.push(...floor.times);
    rawBackSeconds += floor.seconds;
    cold.push(await timed(coldScreenshot));
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
  await pause(500);
  const early = residentMiB();
  for (let i = 0; i < (QUICK ? 0 : 480); i++) await shot();
  await pause(500);
  const after = residentMiB();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  const rate = (count: number, seconds: number) => count / seconds;

  const results: BenchResult[] = [
    {
      name: `single screenshot of a small local page (1280×720) from another process's fetch, ${PAUSE_MS} ms apart, p50 (ms); launches: ${launches()}`,
      unit: 'ms',
      value: median(single),
      baseline: 'raw puppeteer screenshotting the same page from a fresh context it prepared ahead, p50 (ms)',
      baselineValue: median(rawPrewarmed),
      ratio: median(rawPrewarmed) / median(single),
      target: 1 / 1.2,
    },
    {
      name: `the same on a new connection each (curl's way), ${PAUSE_MS} ms apart, p50 (ms)`,
      unit: 'ms',
      value: median(fresh),
      baseline: 'raw puppeteer from a pre-warmed context, p50 (ms)',
      baselineValue: median(rawPrewarmed),
      ratio: median(rawPrewarmed) / median(fresh),
      target: 1 / 1.2,
    },
    {
      name: `back-to-back screenshots from another process's fetch: throughput, p50 ${median(back).toFixed(0)} ms (renders/s)`,
      unit: 'renders/s',
      value: rate(back.length, backSeconds),
      baseline: `raw puppeteer creating a fresh context per screenshot, back to back: throughput, p50 ${median(rawBack).toFixed(0)} ms (renders/s)`,
      baselineValue: rate(rawBack.length, rawBackSeconds),
      ratio: rate(back.length, backSeconds) / rate(rawBack.length, rawBackSeconds),
      target: 1,
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
      name: 'resident memory (this process, serve and its Chromium) after 500 renders (MiB)',
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
