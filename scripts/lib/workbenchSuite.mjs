// @ts-check
// Runs a Mocha suite inside a real VS Code (code-server) driven by Debian's Chromium: the
// workbench runs the suite in its Node extension host and calls `codeAutomationExit` with the
// result. The suite talks back through its report file: lines to stream, "screenshot: NAME" to
// capture the workbench, "user: {json}" to act as the user (answered in the `.acks` file).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import puppeteer from 'puppeteer-core';
import { installExtension, placeExtensionFolder, startCodeServer, workbenchUrl } from './codeServer.mjs';
import { drawn, redrawnOnce, treeStep } from './workbenchTree.mjs';

export const CHROMIUM = process.env.HOOKBENCH_CHROMIUM ?? '/usr/bin/chromium';
/**
 * Holds in the workbench's page once the workspace's stored state (VS Code for the web keeps it in
 * IndexedDB, in the `vscode-web-state-db-<workspace id>` database) lists every tab the workbench
 * shows: the editor part's memento (`memento/workbench.parts.editor`) holds each group's editors,
 * each with what its editor needs to come back (a webview's state, a document's URI).
 */
const TABS_SAVED = `(async () => {
  const prefix = 'vscode-web-state-db-';
  const names = (await indexedDB.databases()).map((d) => d.name ?? '').filter((n) => n.startsWith(prefix) && !n.startsWith(prefix + 'global'));
  const stored = async (name) => {
    const db = await new Promise((resolve, reject) => { const open = indexedDB.open(name); open.onsuccess = () => resolve(open.result); open.onerror = () => reject(open.error); });
    try {
      if (!db.objectStoreNames.contains('ItemTable')) return undefined;
      return await new Promise((resolve, reject) => { const get = db.transaction('ItemTable', 'readonly').objectStore('ItemTable').get('memento/workbench.parts.editor'); get.onsuccess = () => resolve(get.result); get.onerror = () => reject(get.error); });
    } finally {
      db.close();
    }
  };
  const editors = (node) => (Array.isArray(node) ? node.flatMap(editors) : node && typeof node === 'object' ? Object.entries(node).flatMap(([key, value]) => (key === 'editors' && Array.isArray(value) ? value : editors(value))) : []);
  const tabs = document.querySelectorAll('.part.editor .tabs-container > .tab').length;
  for (const name of names) {
    const memento = await stored(name);
    if (typeof memento === 'string' && editors(JSON.parse(memento)).length === tabs) return true;
  }
  return false;
})()`;
/** The suite's whole report, kept in its artifacts folder (see {@link failuresOf}). */
export const REPORT_FILE = 'report.txt';

/**
 * What a failed run's report says of its failures, for a summary at the end of a long log (CI
 * shows only its tail): the last run's end as Mocha reported it (passing, failing, each failure
 * with its error; a suite that reloads ends an earlier window's run with a failure of its own, so
 * only the last counts), then what the report says after it (a timeout, VS Code exiting before
 * the suite ran). Acting-as-user lines are left out.
 * @param {string} artifacts the run's artifacts folder
 * @param {number} [maxLines]
 */
export function failuresOf(artifacts, maxLines = 40) {
  const file = path.join(artifacts, REPORT_FILE);
  const lines = (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : `(no report in ${artifacts})`).split('\n').filter((line) => !line.startsWith('user: '));
  const ended = lines.findLastIndex((line) => /^\d+ passing$/.test(line));
  const summed = ended < 0 ? -1 : lines.findIndex((line, i) => i > ended && line.startsWith('integration: '));
  const end = summed < 0 ? [] : lines.slice(ended, summed + 1);
  const after = lines
    .slice(summed < 0 ? 0 : summed + 1)
    .filter((line) => line.trim() !== '')
    .slice(-12);
  const kept = [...(end.length > maxLines ? [...end.slice(0, maxLines), `… (the rest in ${file})`] : end), ...after];
  return kept.join('\n');
}

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
 * `waitFor`, types into it and presses keys; or clicks what `click` selects once it shows, holding
 * `modifiers` (Shift, Control) down for the click, as a multi-selection does (on a list that moves,
 * named by `still`, right after it moved); or clicks what
 * `clickInWebview` selects inside a webview's page (webviews are frames of their own); or reads a
 * list (`readList`) or what a webview's page shows (`readWebview`), which is the step's answer;
 * or reads or uses a tree view's row (`tree`, workbenchTree.mjs); or reads the workbench's page
 * itself (`readWorkbench`: an expression evaluated in it once `until` holds there).
 * @param {import('puppeteer-core').Page} page
 * @param {{ waitFor?: string, type?: string, press?: string[], click?: string, still?: string, clickInWebview?: string, modifiers?: string[], readList?: ListRead, readWebview?: WebviewRead, readWorkbench?: { read: string, until?: string }, tree?: import('./workbenchTree.mjs').TreeStep }} step
 * @returns {Promise<unknown>} what the step read, if it reads
 */
async function actAsUser(page, step) {
  if (step.tree) return treeStep(page, step.tree);
  if (step.readWorkbench) {
    await page.waitForFunction(step.readWorkbench.until ?? 'true', { timeout: 20_000 });
    return page.evaluate(step.readWorkbench.read);
  }
  if (step.readList) return readList(page, step.readList);
  if (step.readWebview) return readWebview(page, step.readWebview);
  if (step.waitFor) {
    const visible = `[...document.querySelectorAll('.quick-input-widget')].some((w) => w.style.display !== 'none' && w.textContent.includes(${JSON.stringify(step.waitFor)}))`;
    await page.waitForFunction(visible, { timeout: 20_000 });
  }
  // A locator waits for the element to be visible and stable, and retries when the workbench redraws it.
  if (step.click) {
    // A list that moves (rows inserted above while webhooks arrive) between the press and the
    // release takes the click for none of its rows: VS Code's lists open on `click`, which the
    // browser sends to the element both landed on. A person clicks a moving list once it has just
    // moved; so does the step, when it names the list (`still`): right after its next redraw.
    if (step.still) await clickMovingList(page, step.click, step.still);
    else {
      const modifiers = /** @type {import('puppeteer-core').KeyInput[]} */ (step.modifiers ?? []);
      for (const key of modifiers) await page.keyboard.down(key);
      try {
        await page.locator(step.click).setTimeout(20_000).click();
      } finally {
        for (const key of modifiers) await page.keyboard.up(key);
      }
    }
  }
  if (step.clickInWebview) await clickInWebview(page, step.clickInWebview);
  if (step.type && step.waitFor) await typeIntoQuickInput(page, step.type);
  else if (step.type) await page.keyboard.type(step.type, { delay: 10 });
  for (const key of step.press ?? []) await page.keyboard.press(/** @type {import('puppeteer-core').KeyInput} */ (key));
}

/**
 * Clicks the row `row` of the list `list` while the list moves: right after its next redraw, at
 * where the row then is, and says so when the click still reached no row (the list moved between
 * the press and the release) rather than leaving it to look as if the product did nothing.
 * @param {import('puppeteer-core').Page} page @param {string} row @param {string} list
 */
async function clickMovingList(page, row, list) {
  await page.waitForSelector(row, { timeout: 20_000 });
  await redrawnOnce(page, list);
  const box = await (await page.$(row))?.boundingBox();
  if (!box) throw new Error(`${row} is not on screen`);
  await page.evaluate(`(() => {
    window.hookbenchClickOnRow = undefined;
    document.querySelector(${JSON.stringify(list)})?.addEventListener('click', (e) => (window.hookbenchClickOnRow = e.target instanceof Element && e.target.closest('.monaco-list-row') !== null), { once: true, capture: true });
  })()`);
  await page.mouse.click(box.x + Math.min(box.width / 2, 40), box.y + box.height / 2);
  const onRow = await page.evaluate('window.hookbenchClickOnRow');
  if (onRow !== true)
    throw new Error(
      `the list moved between the press and the release: the click reached ${onRow === undefined ? 'nothing in the list' : 'the list, on no row'}`,
    );
}

/**
 * Types `text` into the quick input that has just shown, as a user does: once its box has the
 * keyboard's focus (keys typed while the widget is drawn but its box not yet focused go nowhere),
 * and looking at what was typed before going on: the keys that follow (Enter) wait until the box,
 * still focused, shows it.
 * @param {import('puppeteer-core').Page} page @param {string} text
 */
async function typeIntoQuickInput(page, text) {
  const focused = `document.activeElement?.closest('.quick-input-widget') != null`;
  await page.waitForFunction(focused, { timeout: 20_000 });
  await page.keyboard.type(text, { delay: 10 });
  await page.waitForFunction(`${focused} && (document.activeElement?.value ?? '').endsWith(${JSON.stringify(text)})`, { timeout: 20_000 });
}

/**
 * Clicks the first element `selector` finds in any webview frame, once one shows it (within 20 s).
 * @param {import('puppeteer-core').Page} page
 * @param {string} selector
 */
async function clickInWebview(page, selector) {
  for (const deadline = Date.now() + 20_000; ;) {
    for (const frame of page.frames()) {
      const found = await frame.$(selector).catch(() => null);
      if (found) {
        await found.click();
        await found.dispose();
        return;
      }
    }
    if (Date.now() > deadline) throw new Error(`no webview shows ${selector}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * @typedef {object} WebviewRead
 * @property {string} title how the webview's page title begins (its `<title>`)
 * @property {string} read an expression evaluated in that page, as in its developer tools' console
 *   (a promise is awaited): what the step answers, as JSON
 * @property {string} [until] an expression that holds once the page shows what is to be read
 *   (default: at once)
 */

/**
 * Reads what a webview shows, as a person looking at it would with the developer tools: in the
 * webview whose page title begins with `title`, once `until` holds (within 20 s), the value of
 * `read`. A webview's page is a frame of its own, inside the frame VS Code hosts it in.
 * @param {import('puppeteer-core').Page} page
 * @param {WebviewRead} step
 */
async function readWebview(page, { title, read, until = 'true' }) {
  // A detached frame throws at once rather than rejecting: inside an async function, it rejects.
  const evaluate = async (/** @type {import('puppeteer-core').Frame} */ frame, /** @type {string} */ expression) => frame.evaluate(expression);
  const ready = `document.title.startsWith(${JSON.stringify(title)}) && Boolean(${until})`;
  /** @type {unknown} */
  let failure;
  for (const deadline = Date.now() + 20_000; ;) {
    for (const frame of page.frames()) {
      // A frame being replaced (the webview given a new page) answers nothing, or goes away while
      // it is read: the next look finds the new one.
      if (!(await evaluate(frame, ready).catch(() => false))) continue;
      try {
        return await evaluate(frame, read);
      } catch (error) {
        failure = error;
      }
    }
    if (Date.now() > deadline) {
      const titles = await Promise.all(page.frames().map((frame) => evaluate(frame, 'document.title').catch(() => '?')));
      throw new Error(
        `no webview titled ${JSON.stringify(title)}… shows ${until} (pages: ${titles
          .filter(Boolean)
          .map((t) => JSON.stringify(t))
          .join(', ')})${failure ? `; reading it: ${String(failure)}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * @typedef {object} ListRead
 * @property {string} list the list's container (a workbench list renders only the rows in view)
 * @property {Record<string, string>} fields for each field, the selector of its element in a row
 * @property {string[][]} until the rows to find, each by the `name`s it may show: the list pages until all were seen
 */

/**
 * Reads a workbench list as a person does: looks at the rows in view and pages down with the
 * keyboard until every row `until` names was seen or paging shows nothing new. Each row's
 * fields are their elements' text; rows are told apart by their `name` field.
 * @param {import('puppeteer-core').Page} page
 * @param {ListRead} read
 */
async function readList(page, { list, fields, until }) {
  const rowSelector = `${list} .monaco-list-row`;
  await page.waitForSelector(rowSelector, { timeout: 20_000 });
  /** @type {Map<string, Record<string, string>>} */
  const seen = new Map();
  await page.focus(`${list} .monaco-list`);
  for (let pages = 0, stale = 0; pages < 50 && stale < 3; pages++) {
    const rows = /** @type {Record<string, string>[]} */ (
      await page.$$eval(
        rowSelector,
        (elements, f) =>
          elements.map((row) =>
            Object.fromEntries(Object.entries(f).map(([field, selector]) => [field, row.querySelector(selector)?.textContent?.trim() ?? ''])),
          ),
        fields,
      )
    );
    const before = seen.size;
    for (const row of rows) seen.set(row['name'] ?? '', row);
    if (until.every((names) => names.some((name) => seen.has(name)))) break;
    stale = seen.size === before ? stale + 1 : 0;
    await page.keyboard.press('PageDown');
    await drawn(page);
  }
  return [...seen.values()];
}

/** An empty spot of the activity bar (below its icons): where the pointer rests for a capture. */
const RESTING_POINTER = { x: 24, y: 500 };

/**
 * Captures the workbench into `file` (written whole: the suite waits for it to exist), the pointer
 * first moved off what the last click left it over, so that no hover or tooltip shows.
 * @param {import('puppeteer-core').Page | undefined} page
 * @param {string} file
 */
async function capture(page, file) {
  if (!page) return;
  await page.mouse.move(RESTING_POINTER.x, RESTING_POINTER.y);
  // Once no tooltip shows any more, and the frame without it is drawn.
  await page
    .waitForFunction(`![...document.querySelectorAll('.monaco-hover:not(.hidden), .workbench-hover')].some((hover) => hover.checkVisibility())`, {
      timeout: 5_000,
    })
    .catch(() => undefined);
  await drawn(page);
  await page.screenshot({ path: `${file}.tmp.png` });
  fs.renameSync(`${file}.tmp.png`, file);
}

/**
 * @typedef {object} WorkbenchSuite
 * @property {import('./setup.mjs').VscodeInstall} vscode which code-server, and the Node it runs on
 * @property {string} name the suite's name, seen by the suite as HOOKBENCH_TEST_SUITE
 * @property {string} testsPath the suite's compiled entry (exports `run()`)
 * @property {string} artifacts folder for the logs and failure screenshots (emptied first)
 * @property {string} [screenshots] folder for the screenshots the suite asks for (default: artifacts)
 * @property {string} [extensionPath] the extension folder loaded in development mode
 * @property {string[]} [otherExtensions] extension folders placed in the extensions folder, found as installed
 * @property {{ vsix: string, id: string }} [install] a package installed with --install-extension
 *   instead (then `extensionPath` is a harness that only lets VS Code run the suite)
 * @property {boolean} [restricted] workspace trust on: the folder opens in restricted mode
 * @property {boolean} [portScan] false: VS Code's remote port scan off (see codeServer.mjs)
 * @property {(workspace: string, stateDir: string) => NodeJS.ProcessEnv | void} prepare fills the
 *   workspace folder (created empty); returns extra environment for the extension host
 */

/**
 * Runs one suite in its own code-server and Chromium; resolves with its exit code.
 * @param {WorkbenchSuite} suite
 */
export async function runWorkbenchSuite(suite) {
  const { vscode, artifacts } = suite;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-vscode-'));
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const screenshots = suite.screenshots ?? artifacts;
  fs.mkdirSync(screenshots, { recursive: true });
  const report = path.join(stateDir, 'report.txt');
  fs.writeFileSync(report, '');
  const workspace = path.join(stateDir, 'workspace');
  fs.mkdirSync(workspace, { recursive: true });
  const extraEnv = suite.prepare(workspace, stateDir) ?? {};
  const serverLog = fs.createWriteStream(path.join(artifacts, 'code-server.log'));
  for (const folder of suite.otherExtensions ?? []) placeExtensionFolder(stateDir, folder);
  const installed = suite.install && (await installExtension({ codeServerDir: vscode.dir, node: vscode.node, stateDir, ...suite.install }));

  const serverOptions = {
    codeServerDir: vscode.dir,
    node: vscode.node,
    args: vscode.serverArgs,
    stateDir,
    restricted: suite.restricted ?? false,
    portScan: suite.portScan ?? true,
    env: { HOOKBENCH_TEST_REPORT: report, HOOKBENCH_TEST_SUITE: suite.name, ...(installed ? { HOOKBENCH_INSTALLED_EXTENSION: installed } : {}), ...extraEnv },
    onLog: (/** @type {string} */ line) => serverLog.write(line + '\n'),
  };
  let server = await startCodeServer(serverOptions);
  /**
   * Reloads the workbench as a user does (the suite asked with "reload: KIND"). `window`: the
   * command palette's Developer: Reload Window, which has the workbench save its state first.
   * `server`: code-server stopped and started again on the same port (its address names the
   * workspace's stored state), then the browser's reload, as after restarting `npm start`. Before
   * the stop, the workspace's stored state lists every tab shown: the web workbench saves its
   * state every 5 s while its window has the focus (BrowserStorageService's flush when idle,
   * skipped without the focus, which a headless window never has), so the window is given the
   * focus, as a user working in it, until the stored state holds every tab; a closing tab may
   * not finish the write it starts (its unload disposes the storage, whose write waits a timer).
   * VS Code runs the suite again in the new window; the phase file tells it which reload it comes after.
   * @param {string} kind
   */
  const reload = async (kind) => {
    const page = workbench;
    if (!page) return;
    fs.writeFileSync(`${report}.phase`, kind);
    if (kind === 'server') {
      await page.emulateFocusedPage(true);
      try {
        await page.waitForFunction(TABS_SAVED, { timeout: 30_000, polling: 250 });
      } catch (error) {
        // Restarted all the same: the suite's next run says which tab did not come back.
        console.error(`reload (server): the stored state did not list every tab shown: ${String(error).split('\n')[0]}`);
      } finally {
        await page.emulateFocusedPage(false);
      }
      // From here the old tab speaks for nothing: its workbench, losing its server, may call
      // codeAutomationExit itself.
      generation += 1;
      await server.stop();
      server = await startCodeServer({ ...serverOptions, port: server.port });
      // The old tab lost its server: the workbench may have navigated it to an error page or
      // reloaded it on its own, which ends puppeteer's session with it (Page.reload: Session
      // closed). A user opens the URL again; so does the launcher, in a new tab, once the old one
      // is closed: as a reload does, since both tabs' webviews share the origin's service worker,
      // and the old tab's, reconnecting, could take it from a webview the new tab restored (it
      // stayed blank: "Found unexpected service worker controller … Waiting for controllerchange").
      await page.close().catch(() => undefined);
      workbench = await openWorkbench();
      return;
    }
    const navigated = page.waitForNavigation({ waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.keyboard.press('F1');
    await page.waitForFunction(`[...document.querySelectorAll('.quick-input-widget')].some((w) => w.style.display !== 'none')`, { timeout: 20_000 });
    await page.keyboard.type('Developer: Reload Window', { delay: 10 });
    await page.waitForFunction(`document.querySelector('.quick-input-list .monaco-list-row.focused')?.textContent.includes('Reload Window')`, {
      timeout: 20_000,
    });
    await page.keyboard.press('Enter');
    await navigated;
  };
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    defaultViewport: { width: 1400, height: 900 },
  });
  let offset = 0;
  /** @type {import('puppeteer-core').Page | undefined} */
  let workbench;
  /** @type {Promise<void>} */
  let userSteps = Promise.resolve();
  /** Screenshots under way: the browser stays open until they are written. @type {Promise<void>[]} */
  const captures = [];
  const streamReport = () => {
    const text = fs.readFileSync(report, 'utf8');
    const fresh = text.slice(offset);
    process.stdout.write(fresh);
    offset = text.length;
    for (const match of fresh.matchAll(/^screenshot: ([\w-]+)$/gm)) {
      const file = path.join(screenshots, `${match[1]}.png`);
      captures.push(capture(workbench, file).catch((error) => console.error(`screenshot ${match[1]}: ${String(error)}`)));
    }
    // A test asks the user to act ("user: {json}") or to reload ("reload: KIND"): done in order,
    // each step acknowledged in the acks file (a reload ends the extension host that asked).
    for (const match of fresh.matchAll(/^(?:reload: (window|server)|user: (\{.*\}))$/gm)) {
      const kind = match[1];
      if (kind) {
        userSteps = userSteps.then(() => reload(kind)).catch((error) => console.error(`reload (${kind}): ${String(error)}`));
        continue;
      }
      const step = JSON.parse(match[2] ?? '{}');
      userSteps = userSteps.then(async () => {
        let outcome = 'done';
        try {
          const answer = workbench ? await actAsUser(workbench, step) : undefined;
          if (answer !== undefined) outcome = `done ${JSON.stringify(answer)}`;
        } catch (error) {
          outcome = `failed ${String(error).split('\n')[0]}`;
          await workbench?.screenshot({ path: path.join(artifacts, `${step.id}-failed.png`) }).catch(() => undefined);
          const dom = await workbench
            ?.evaluate(
              '(document.querySelector(".notifications-toasts")?.outerHTML ?? "no toasts element").slice(0, 4000) + "\\n\\nBELL\\n" + (document.querySelector("[id=\\"status.notifications\\"]")?.outerHTML ?? "none").slice(0, 3000)',
            )
            .catch((e) => String(e));
          fs.writeFileSync(path.join(artifacts, `${step.id}-failed.html`), String(dom));
        }
        fs.appendFileSync(`${report}.acks`, `${step.id} ${outcome}\n`);
      });
    }
  };
  const ticker = setInterval(streamReport, 250);
  const consoleLog = fs.createWriteStream(path.join(artifacts, 'browser-console.log'));
  /** @type {(code: number) => void} */
  let exited = () => undefined;
  const exitCode = new Promise((resolve) => (exited = resolve));
  const extensionPath = suite.extensionPath ?? harness(stateDir);
  const url = workbenchUrl({ origin: server.origin, port: server.port, folder: workspace, extensionPath, testsPath: suite.testsPath });
  /** Which tab's exit counts: the newest one's (see reload). */
  let generation = 0;
  /** A tab on the workbench URL, its console logged and its exit function exposed (after a server restart too). */
  const openWorkbench = async () => {
    const page = await browser.newPage();
    const mine = generation;
    page.on('console', (m) => consoleLog.write(`${m.type()} ${m.text()}\n`));
    await page.exposeFunction('codeAutomationExit', (/** @type {number} */ code) => {
      if (mine === generation) exited(code);
    });
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    return page;
  };
  try {
    workbench = await openWorkbench();
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), TIMEOUT_MS)));
    const result = await Promise.race([exitCode, timeout]);
    clearTimeout(timer);
    streamReport();
    /** Said on the terminal and in the report, where the launcher's summary finds it. @param {string} said */
    const tell = (said) => {
      console.error(said);
      fs.appendFileSync(report, `\n${said}\n`);
    };
    if (result === 'timeout') {
      await workbench?.screenshot({ path: path.join(artifacts, 'timeout.png') });
      tell(`The ${suite.name} suite did not finish within ${TIMEOUT_MS} ms (screenshot in ${artifacts}).`);
      return 1;
    }
    if (offset === 0) tell(`VS Code exited with ${result} without running the suite; see ${artifacts}.`);
    return Number(result);
  } finally {
    // The report outlives the run's state folder: the launcher's summary reads its failures.
    fs.copyFileSync(report, path.join(artifacts, REPORT_FILE));
    clearInterval(ticker);
    await Promise.all(captures);
    consoleLog.end();
    await browser.close();
    await server.stop();
    serverLog.end();
    await outlived(stateDir);
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

/** How long a receiver may take to stop once its window is gone (1,000 instances' snapshots). */
const OUTLIVE_MS = 60_000;

/**
 * Waits for the processes still running from `stateDir` (a receiver the extension started, with
 * `--data` in the run's workspace) to end. Such a receiver outlives code-server: it sees its parent
 * gone, then puts its instances to sleep and writes their snapshots, so removing the folder before
 * it ends fails (ENOTEMPTY) or leaves files behind. One still running after OUTLIVE_MS is a
 * receiver that did not stop with its window: it is said, and killed.
 * @param {string} stateDir
 */
async function outlived(stateDir) {
  const running = () =>
    fs.readdirSync('/proc').filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      try {
        return fs.readFileSync(path.join('/proc', entry, 'cmdline'), 'utf8').includes(stateDir);
      } catch {
        return false; // gone while listing
      }
    });
  const until = Date.now() + OUTLIVE_MS;
  while (running().length > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of running()) {
    try {
      const command = fs
        .readFileSync(path.join('/proc', pid, 'cmdline'), 'utf8')
        .replaceAll('\0', ' ')
        .trim();
      process.kill(Number(pid), 'SIGKILL');
      console.error(`pid ${pid} still ran ${OUTLIVE_MS / 1000} s after its code-server stopped, killed: ${command}`);
    } catch {
      // it ended meanwhile
    }
  }
}

/**
 * An empty extension that VS Code loads in development mode so that it runs a suite against the
 * extensions installed the user's way (it runs a suite only beside a development extension).
 * @param {string} stateDir
 */
function harness(stateDir) {
  const dir = path.join(stateDir, 'harness');
  fs.mkdirSync(dir, { recursive: true });
  const manifest = { name: 'hookbench-test-harness', publisher: 'hookbench-tests', version: '0.0.0', engines: { vscode: '^1.100.0' } };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  return dir;
}
