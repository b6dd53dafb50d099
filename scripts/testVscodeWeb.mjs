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

/**
 * What a person does in the workbench for a test step: waits to see a prompt whose title holds
 * `waitFor`, types into it and presses keys; or clicks what `click` selects once it shows.
 * @param {import('puppeteer-core').Page} page
 * @param {{ waitFor?: string, type?: string, press?: string[], click?: string }} step
 */
async function actAsUser(page, step) {
  if (step.waitFor) {
    const visible = `[...document.querySelectorAll('.quick-input-widget')].some((w) => w.style.display !== 'none' && w.textContent.includes(${JSON.stringify(step.waitFor)}))`;
    await page.waitForFunction(visible, { timeout: 20_000 });
  }
  // A locator waits for the element to be visible and stable, and retries when the workbench redraws it.
  if (step.click) await page.locator(step.click).setTimeout(20_000).click();
  if (step.type) await page.keyboard.type(step.type, { delay: 10 });
  for (const key of step.press ?? []) await page.keyboard.press(/** @type {import('puppeteer-core').KeyInput} */ (key));
}

/** The bytes of the files a planted `.hookbench/` links to: the restricted suite checks they never change. */
export const VICTIM_TEXT = '# a file of the user\'s, outside the workspace\nexport PATH=$PATH\n';

/**
 * A cloned repository with a committed `.hookbench/` whose files are links to the user's files
 * (the security review's finding 1), and settings that point the data folder elsewhere.
 * @param {string} workspace @param {string} victim
 */
function plantRepository(workspace, victim) {
  fs.writeFileSync(victim, VICTIM_TEXT);
  const deliveries = path.join(workspace, '.hookbench', '_hookbench', 'deliveries');
  fs.mkdirSync(deliveries, { recursive: true });
  fs.symlinkSync(victim, path.join(deliveries, 'deliveries-00000001.ndjson'));
  const instance = path.join(workspace, '.hookbench', 'webhook-agent', 'acme');
  fs.mkdirSync(instance, { recursive: true });
  fs.writeFileSync(path.join(instance, 'name'), 'acme');
  fs.symlinkSync(victim, path.join(instance, 'journal-00000001.log'));
  fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'hookbench.dataDirectory': '.hookbench', 'hookbench.receiver.autoStart': true }, null, 2));
}

/**
 * Runs one suite in its own code-server and Chromium; resolves with its exit code.
 * @param {{ name: string, restricted: boolean, env?: NodeJS.ProcessEnv, prepare?: (workspace: string, stateDir: string) => NodeJS.ProcessEnv }} suite
 */
async function runSuite(suite) {
  const codeServerDir = await ensureCodeServer();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-vscode-'));
  const artifacts = path.join(root, 'out', 'test', suite.restricted ? 'vscode-web-restricted' : 'vscode-web');
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const report = path.join(stateDir, 'report.txt');
  fs.writeFileSync(report, '');
  const workspace = path.join(stateDir, 'workspace');
  fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
  const extraEnv = suite.prepare?.(workspace, stateDir) ?? {};
  const serverLog = fs.createWriteStream(path.join(artifacts, 'code-server.log'));

  const server = await startCodeServer({
    codeServerDir,
    stateDir,
    restricted: suite.restricted,
    env: { HOOKBENCH_TEST_REPORT: report, HOOKBENCH_TEST_SUITE: suite.name, ...extraEnv },
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
    // A test asks the user to act ("user: {json}"): done in order, each acknowledged in the acks file.
    for (const match of fresh.matchAll(/^user: (\{.*\})$/gm)) {
      const step = JSON.parse(match[1] ?? '{}');
      userSteps = userSteps.then(async () => {
        let outcome = 'done';
        try {
          if (workbench) await actAsUser(workbench, step);
        } catch (error) {
          outcome = `failed ${String(error).split('\n')[0]}`;
          await workbench?.screenshot({ path: path.join(artifacts, `${step.id}-failed.png`) }).catch(() => undefined);
          const dom = await workbench?.evaluate('(document.querySelector(".notifications-toasts")?.outerHTML ?? "no toasts element").slice(0, 4000) + "\\n\\nBELL\\n" + (document.querySelector("[id=\\"status.notifications\\"]")?.outerHTML ?? "none").slice(0, 3000)').catch((e) => String(e));
          fs.writeFileSync(path.join(artifacts, `${step.id}-failed.html`), String(dom));
        }
        fs.appendFileSync(`${report}.acks`, `${step.id} ${outcome}\n`);
      });
    }
  };
  /** @type {Promise<void>} */
  let userSteps = Promise.resolve();
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

async function main() {
  // HOOKBENCH_TEST_ONLY=trusted|restricted runs one of the two.
  const only = process.env.HOOKBENCH_TEST_ONLY;
  const trusted = only === 'restricted' ? 0 : await runSuite({ name: 'trusted', restricted: false });
  if (only === 'trusted') return trusted;
  console.log('\nRestricted mode (an untrusted workspace with a planted .hookbench/):');
  const restricted = await runSuite({
    name: 'restricted',
    restricted: true,
    prepare: (workspace, stateDir) => {
      const victim = path.join(stateDir, 'victim-bashrc');
      plantRepository(workspace, victim);
      return { HOOKBENCH_TEST_VICTIM: victim };
    },
  });
  return trusted || restricted;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
