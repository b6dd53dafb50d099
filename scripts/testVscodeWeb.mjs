// @ts-check
// Launcher 1 of the integration suite: a real VS Code (code-server) driven by Debian's Chromium.
// The workbench runs the Mocha suite in its Node extension host and calls `codeAutomationExit`
// with the result; this script streams the suite's report and exits with that code.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import puppeteer from 'puppeteer-core';
import { startCodeServer, workbenchUrl } from './lib/codeServer.mjs';
import { ensureCodeServer, root } from './lib/setup.mjs';

const CHROMIUM = process.env.HOOKBENCH_CHROMIUM ?? '/usr/bin/chromium';
const TIMEOUT_MS = Number(process.env.HOOKBENCH_TEST_TIMEOUT_MS ?? 10 * 60_000);
/** Flags that keep Chromium off the (closed) network and working as root in a container. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

async function main() {
  const codeServerDir = await ensureCodeServer();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-vscode-'));
  const artifacts = path.join(root, 'out', 'test', 'vscode-web');
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const report = path.join(stateDir, 'report.txt');
  fs.writeFileSync(report, '');
  const workspace = path.join(stateDir, 'workspace');
  fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
  const serverLog = fs.createWriteStream(path.join(artifacts, 'code-server.log'));

  const server = await startCodeServer({
    codeServerDir,
    stateDir,
    env: { HOOKBENCH_TEST_REPORT: report },
    onLog: (line) => serverLog.write(line + '\n'),
  });
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    defaultViewport: { width: 1400, height: 900 },
  });
  let offset = 0;
  /** @type {import('puppeteer-core').Page | undefined} */
  let workbench;
  // A test asks for a screenshot of the workbench with a "screenshot: NAME" line in its report.
  const streamReport = () => {
    const text = fs.readFileSync(report, 'utf8');
    const fresh = text.slice(offset);
    process.stdout.write(fresh);
    offset = text.length;
    for (const match of fresh.matchAll(/^screenshot: ([\w-]+)$/gm)) {
      const file = path.join(artifacts, `${match[1]}.png`);
      void workbench?.screenshot({ path: `${file}.tmp.png` }).then(() => fs.renameSync(`${file}.tmp.png`, file));
    }
  };
  const ticker = setInterval(streamReport, 250);
  try {
    const page = await browser.newPage();
    workbench = page;
    const consoleLog = fs.createWriteStream(path.join(artifacts, 'browser-console.log'));
    page.on('console', (m) => consoleLog.write(`${m.type()} ${m.text()}\n`));
    const exitCode = new Promise((resolve) => page.exposeFunction('codeAutomationExit', (/** @type {number} */ code) => resolve(code)));
    const url = workbenchUrl({
      origin: server.origin,
      port: server.port,
      folder: workspace,
      extensionPath: root,
      testsPath: path.join(root, 'out', 'test', 'integration', 'index'),
    });
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), TIMEOUT_MS));
    const result = await Promise.race([exitCode, timeout]);
    streamReport();
    if (result === 'timeout') {
      await page.screenshot({ path: path.join(artifacts, 'timeout.png') });
      console.error(`The integration suite did not finish within ${TIMEOUT_MS} ms (screenshot in ${artifacts}).`);
      return 1;
    }
    if (offset === 0) console.error(`VS Code exited with ${result} without running the suite; see ${artifacts}.`);
    return Number(result);
  } finally {
    clearInterval(ticker);
    await browser.close();
    await server.stop();
    serverLog.end();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
