import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import Mocha from 'mocha';

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_TEST_FAIL, EVENT_TEST_PASS, EVENT_TEST_PENDING } = Mocha.Runner.constants;

/** Writes a measured figure into the report (the suite asserts nothing about time). */
export function reportFigure(name: string, value: string): void {
  const line = `figure: ${name}: ${value}`;
  console.log(line);
  const file = process.env['HOOKBENCH_TEST_REPORT'];
  if (file) fs.appendFileSync(file, line + '\n');
}

type UserStep = {
  waitFor?: string;
  type?: string;
  press?: string[];
  click?: string;
  /** The list `click` lands in, when it moves: the click comes right after its next redraw. */
  still?: string;
  clickInWebview?: string;
  modifiers?: ('Shift' | 'Control')[];
  readList?: { list: string; fields: Record<string, string>; until: string[][] };
  readWebview?: { title: string; read: string; until?: string };
  tree?: { view: string; path: string[]; act: string; item?: string };
  readWorkbench?: { read: string; until?: string };
};

/**
 * Reads a list in the workbench as the user sees it (the launcher pages through it until it saw
 * a row for each entry of `until`, the `name`s that row may show): each row's fields, the text of
 * the elements the `fields` selectors pick in it. Rejects where no launcher reads the workbench.
 */
export async function readWorkbenchList(list: string, fields: Record<string, string> & { name: string }, until: string[][]): Promise<Record<string, string>[]> {
  const rows = await userDoes({ readList: { list, fields, until } });
  if (!Array.isArray(rows)) throw new Error(`the launcher read no rows in ${list}: ${JSON.stringify(rows)}`);
  return rows as Record<string, string>[];
}

/**
 * Reads what a webview shows (the launcher looks inside its page, as the developer tools would):
 * in the webview whose page title begins with `title`, once the expression `until` holds there
 * (within 20 s), the value of the expression `read`, evaluated in the page. Rejects where no
 * launcher reads the workbench.
 */
export function readWebview<T>(title: string, read: string, until?: string): Promise<T> {
  return userDoes({ readWebview: { title, read, ...(until !== undefined ? { until } : {}) } }) as Promise<T>;
}

/**
 * Reads the workbench's own page (the launcher evaluates `read` there, as its developer tools'
 * console would, once `until` holds within 20 s). Rejects where no launcher reads the workbench.
 */
export function readWorkbench<T>(read: string, until?: string): Promise<T> {
  return userDoes({ readWorkbench: { read, ...(until !== undefined ? { until } : {}) } }) as Promise<T>;
}

/**
 * Asks the launcher to act as the user in the real workbench (integration launcher `actAsUser`):
 * wait for a prompt titled `waitFor`, type, press keys, or click a selector (holding `modifiers`
 * such as Shift or Control), click a selector inside a webview (`clickInWebview`), read a list
 * (`readList`, see `readWorkbenchList`) or a webview's page (`readWebview`, see `readWebview`).
 * Resolves when it is done, with what it read if it reads; rejects with what went wrong.
 */
export function userDoes(step: UserStep, timeoutMs = 30_000): Promise<unknown> {
  const file = process.env['HOOKBENCH_TEST_REPORT'];
  if (!file) return Promise.reject(new Error('no launcher to act as the user (HOOKBENCH_TEST_REPORT is unset)'));
  // Each test file is a bundle of its own with its own copy of this module: a counter here would
  // start again in each, and a step would read the answer of an earlier file's step of that number.
  const id = `step-${randomUUID()}`;
  fs.appendFileSync(file, `user: ${JSON.stringify({ id, ...step })}\n`);
  const acks = `${file}.acks`;
  // Only whole lines: the launcher may be writing a long answer while this reads the file.
  const outcome = () =>
    fs.existsSync(acks)
      ? fs
          .readFileSync(acks, 'utf8')
          .split('\n')
          .slice(0, -1)
          .find((line) => line.startsWith(`${id} `))
      : undefined;
  return new Promise<unknown>((resolve, reject) => {
    const started = Date.now();
    // The launcher reads the report every 250 ms; its answer is a line in the acks file.
    const timer = setInterval(() => {
      const line = outcome();
      if (line === undefined && Date.now() - started < timeoutMs) return;
      clearInterval(timer);
      if (line === `${id} done`) resolve(undefined);
      else if (line?.startsWith(`${id} done `)) resolve(JSON.parse(line.slice(`${id} done `.length)));
      else reject(new Error(`the user step ${JSON.stringify(step)} ${line ? line.slice(id.length + 1) : 'got no answer'}`));
    }, 100);
  });
}

/** How the workbench was reloaded before this run of the suite (the launcher writes it), if it was. */
export type ReloadKind = 'window' | 'server';

/**
 * The reload this run of the suite comes after: `window` (the browser's reload, as Developer:
 * Reload Window does), `server` (code-server restarted, then the page reloaded, as after
 * restarting `npm start`), or undefined in the suite's first run.
 */
export function reloadPhase(): ReloadKind | undefined {
  const file = process.env['HOOKBENCH_TEST_REPORT'];
  const phase = file && fs.existsSync(`${file}.phase`) ? fs.readFileSync(`${file}.phase`, 'utf8').trim() : undefined;
  return phase === 'window' || phase === 'server' ? phase : undefined;
}

/**
 * Asks the launcher to reload the workbench (`kind`, see {@link reloadPhase}): this extension host
 * ends with it, so the promise never settles; VS Code runs the suite again in the new window.
 */
export function reloadWorkbench(kind: ReloadKind): Promise<never> {
  const file = process.env['HOOKBENCH_TEST_REPORT'];
  if (!file) return Promise.reject(new Error('no launcher to reload the workbench (HOOKBENCH_TEST_REPORT is unset)'));
  fs.appendFileSync(file, `reload: ${kind}\n`);
  return new Promise<never>(() => undefined);
}

/**
 * A spec-style reporter that writes every line to the extension host's console and, when the
 * launcher sets `HOOKBENCH_TEST_REPORT`, appends it to that file: the launcher streams the file to
 * its own output, since the extension host's stdout is not the terminal's.
 */
export class FileReporter {
  constructor(runner: Mocha.Runner) {
    const file = process.env['HOOKBENCH_TEST_REPORT'];
    const write = (line: string) => {
      console.log(line);
      if (file) fs.appendFileSync(file, line + '\n');
    };
    let depth = 0;
    const phaseAtStart = reloadPhase();
    const failures: { title: string; error: Error }[] = [];
    let passes = 0;
    let pending = 0;

    runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.title) write('  '.repeat(depth) + suite.title);
      depth++;
    });
    runner.on('suite end', () => depth--);
    runner.on(EVENT_TEST_PASS, (test: Mocha.Test) => {
      passes++;
      write(`${'  '.repeat(depth)}✔ ${test.title} (${test.duration ?? 0} ms)`);
    });
    runner.on(EVENT_TEST_PENDING, (test: Mocha.Test) => {
      pending++;
      write(`${'  '.repeat(depth)}- ${test.title}`);
    });
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Test, error: Error) => {
      failures.push({ title: test.fullTitle(), error });
      write(`${'  '.repeat(depth)}✘ ${test.title}`);
      // The workbench as the failure left it, for the one reading the report (artifacts' screenshots);
      // not when the failure is this run's window going away for a reload the test asked for.
      if (reloadPhase() === phaseAtStart) write(`screenshot: failed-${failures.length}-${test.title.replace(/\W+/g, '-').slice(0, 60)}`);
    });
    runner.once(EVENT_RUN_END, () => {
      write('');
      write(`${passes} passing`);
      if (pending) write(`${pending} pending`);
      if (failures.length) write(`${failures.length} failing`);
      failures.forEach(({ title, error }, i) => {
        write(`\n${i + 1}) ${title}\n${error.stack ?? error.message}`);
      });
      write('');
      write(`integration: ${passes} passed, ${failures.length} failed` + (pending ? `, ${pending} skipped` : ''));
    });
  }
}

/**
 * Asks the web launcher for a screenshot of the workbench (out/test/vscode-web/NAME.png) and waits
 * for it; resolves false where no launcher takes screenshots (the desktop launcher).
 */
export async function requestScreenshot(name: string, extensionRoot: string, timeoutMs = 15_000): Promise<boolean> {
  const file = process.env['HOOKBENCH_TEST_REPORT'];
  if (!file) return false;
  const png = `${extensionRoot}/out/test/vscode-web/${name}.png`;
  fs.rmSync(png, { force: true });
  fs.appendFileSync(file, `screenshot: ${name}\n`);
  for (const started = Date.now(); Date.now() - started < timeoutMs;) {
    if (fs.existsSync(png)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
