// The render emulator: a warm screenshot of a small local page through the REST interface
// (one warm Chromium, a fresh context per request) against launching Chromium for each request,
// in the same run; 8 concurrent requests against the same requests one at a time; and memory
// after 500 renders against memory after the first 20.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import puppeteer from 'puppeteer-core';
import { RenderClient } from '../src/core/render/client';
import { lineLogger } from '../src/core/log';
import { findChromium } from '../src/server/render/browserPool';
import { RenderServer } from '../src/server/render/renderServer';
import { report, type BenchResult } from './harness';

const HTML = '<body style="font-family: sans-serif"><h1>Invoice 1042</h1><p>Thank you for your order.</p><ul><li>One widget</li><li>Two gadgets</li></ul></body>';
/** Cloudflare's default viewport (1920×1080), as most requests use it. */
const BODY = { html: HTML };
const VIEWPORT = { width: 1920, height: 1080 };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** What a script without a warm browser does: launch, render, close. */
async function coldScreenshot(): Promise<void> {
  const browser = await puppeteer.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.setViewport(VIEWPORT);
    await page.setContent(HTML, { waitUntil: 'domcontentloaded' });
    await page.screenshot();
  } finally {
    await browser.close();
  }
}

/** Resident memory (MiB) of this process plus every Chromium process of the pool. */
function residentMiB(rootPid: number | undefined): number {
  const pids = [process.pid];
  if (rootPid) {
    pids.push(rootPid);
    const children = (ppid: number): number[] => {
      let out: string;
      try {
        out = execFileSync('pgrep', ['-P', String(ppid)], { encoding: 'utf8' });
      } catch {
        return [];
      }
      return out.split('\n').filter(Boolean).map(Number).flatMap((pid) => [pid, ...children(pid)]);
    };
    pids.push(...children(rootPid));
  }
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return kib / 1024;
}

async function main(): Promise<void> {
  const server = new RenderServer({ host: '127.0.0.1', port: 0, token: 'bench', logger: lineLogger(() => undefined, 'error'), ratePerSecond: 0 });
  const client = new RenderClient({ baseUrl: await server.listen(), accountId: 'bench', token: 'bench' });
  const shot = () => client.render('screenshot', BODY);
  for (let i = 0; i < 5; i++) await shot();

  // Interleaved, so both see the same machine.
  const warm: number[] = [];
  const cold: number[] = [];
  const back: number[] = [];
  for (let i = 0; i < 12; i++) {
    // A person pressing Render leaves the pool a moment to open its spare page.
    await new Promise((resolve) => setTimeout(resolve, 250));
    warm.push(await timed(shot));
    back.push(await timed(shot));
    if (i % 2 === 0) cold.push(await timed(coldScreenshot));
  }

  const sequentialStart = performance.now();
  for (let i = 0; i < 24; i++) await shot();
  const sequentialRate = 24 / ((performance.now() - sequentialStart) / 1000);
  const eight: number[] = [];
  const concurrentStart = performance.now();
  for (let round = 0; round < 3; round++) eight.push(...(await Promise.all(Array.from({ length: 8 }, () => timed(shot)))));
  const concurrentRate = 24 / ((performance.now() - concurrentStart) / 1000);

  for (let i = 0; i < 15; i++) await shot();
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const early = residentMiB(await server.pool.pid());
  for (let i = 0; i < 480; i++) await shot();
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = residentMiB(await server.pool.pid());
  await server.close();

  const results: BenchResult[] = [
    {
      name: `warm screenshot of a small local page (1920×1080) through the emulator, p50 (ms), after a pause; back to back p50 ${median(back).toFixed(0)} ms; launches: ${server.pool.launches}`,
      unit: 'ms',
      value: median(warm),
      baseline: 'launching Chromium for the request (puppeteer.launch → screenshot → close), p50 (ms)',
      baselineValue: median(cold),
      ratio: median(cold) / median(warm),
    },
    {
      name: `8 concurrent screenshots (pool of ${server.pool.concurrency} pages): throughput, p50 ${median(eight).toFixed(0)} ms`,
      unit: 'renders/s',
      value: concurrentRate,
      baseline: 'the same screenshots one at a time (renders/s)',
      baselineValue: sequentialRate,
      ratio: concurrentRate / sequentialRate,
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
