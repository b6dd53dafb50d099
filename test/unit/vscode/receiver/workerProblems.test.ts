// What the extension shows for serve's worker reports (src/vscode/receiver/workerProblems.ts): a
// failed build as Problems and a status bar item until it recovers, one toast per distinct
// failure, and a throwing handler's toast at most once per distinct error in its quiet time.
import { notifications, vscodeShim } from '../../helpers/vscodeShim';
import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../../../src/core/events';
import type { WorkerReport } from '../../../../src/vscode/receiver/serveProcess';

/** The few workbench parts the module uses, recording what it set. */
const diagnostics = new Map<string, { message: string; line: number; character: number }[]>();
const statusBar = { text: '', shown: false };

class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}
class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}
class Diagnostic {
  source?: string;
  constructor(
    readonly range: Range,
    readonly message: string,
  ) {}
}

Object.assign(vscodeShim, {
  Position,
  Range,
  Diagnostic,
  DiagnosticSeverity: { Error: 0 },
  StatusBarAlignment: { Left: 1 },
  Uri: { file: (fsPath: string) => ({ fsPath, toString: () => fsPath }) },
  languages: {
    createDiagnosticCollection: () => ({
      set: (uri: { fsPath: string }, list: Diagnostic[]) =>
        diagnostics.set(
          uri.fsPath,
          list.map((d) => ({ message: d.message, line: d.range.start.line, character: d.range.start.character })),
        ),
      clear: () => diagnostics.clear(),
      dispose: () => undefined,
    }),
  },
});
Object.assign(vscodeShim.window, {
  createStatusBarItem: () => ({
    set text(value: string) {
      statusBar.text = value;
    },
    show: () => (statusBar.shown = true),
    hide: () => (statusBar.shown = false),
    dispose: () => undefined,
  }),
});
const saved = new Emitter<{ uri: { fsPath: string } }>();
Object.assign(vscodeShim.workspace, { asRelativePath: (file: string) => file.replace('/project/', ''), onDidSaveTextDocument: saved.event });

const failedBuild = (serving: 'previous' | 'none'): WorkerReport => ({
  kind: 'status',
  status: {
    state: 'failed',
    serving,
    problems: [{ kind: 'build', message: 'Expected ";" but found ")"', location: { file: '/project/src/index.ts', line: 7, column: 33 } }],
  },
});
const failed = failedBuild('previous');
const exception = (message: string): WorkerReport => ({
  kind: 'exception',
  exception: { method: 'POST', path: '/webhooks/github/acme', message, location: { file: '/project/src/index.ts', line: 14, column: 9 } },
});

async function problems(now: () => number = () => 0) {
  const { WorkerProblems } = await import('../../../../src/vscode/receiver/workerProblems');
  const reports = new Emitter<WorkerReport>();
  return { view: new WorkerProblems(reports.event, now), report: (report: WorkerReport) => reports.fire(report) };
}

beforeEach(() => {
  notifications.shown.length = 0;
  diagnostics.clear();
  statusBar.shown = false;
});

describe('a failed build of the worker', () => {
  it('is a Problem on its line and a status bar item, with one toast however often the same failure is saved, until it builds again', async () => {
    const { view, report } = await problems();
    report(failed);
    report(failed);
    assert.deepEqual(diagnostics.get('/project/src/index.ts'), [{ message: 'Expected ";" but found ")"', line: 6, character: 32 }]);
    assert.equal(statusBar.shown, true);
    assert.equal(statusBar.text, '$(error) worker: build failed, serving the previous build');
    assert.deepEqual(notifications.shown, [
      {
        level: 'error',
        text: 'Hookbench: the worker did not build; serving the previous build: src/index.ts:7:33: Expected ";" but found ")"',
        items: ['Show Problem'],
      },
    ]);
    report({ kind: 'status', status: { state: 'ok' } });
    assert.equal(diagnostics.size, 0);
    assert.equal(statusBar.shown, false);
    // The failure's toast cannot be taken back: a second one says it is over.
    assert.deepEqual(notifications.shown[1], { level: 'info', text: 'Hookbench: the worker builds again, and serve runs the new build.', items: [] });
    report(failed);
    assert.equal(notifications.shown.length, 3, 'the same failure after a recovery is told again');
    view.dispose();
  });

  it('Show Problem clicked after the fix says the problem is gone instead of opening a line with no error; before it, opens the line', async () => {
    const opened: string[] = [];
    Object.assign(vscodeShim.window, {
      showTextDocument: async (uri: { fsPath: string }, options: { selection: Range }) => opened.push(`${uri.fsPath}:${options.selection.start.line + 1}`),
    });
    const clicks: ((choice: string | undefined) => void)[] = [];
    notifications.choose = (message) => (message.level === 'error' ? new Promise<string | undefined>((resolve) => clicks.push(resolve)) : undefined) as never;
    try {
      const { view, report } = await problems();
      report(failed);
      clicks.shift()!('Show Problem');
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(opened, ['/project/src/index.ts:7'], 'while it fails, the click opens its line');
      report({ kind: 'status', status: { state: 'ok' } });
      report(failed);
      report({ kind: 'status', status: { state: 'ok' } });
      clicks.shift()!('Show Problem');
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(opened, ['/project/src/index.ts:7'], 'no line is opened once it builds');
      assert.equal(notifications.shown.at(-1)?.text, 'Hookbench: that problem is gone: the worker builds again, and serve runs the new build.');
      view.dispose();
    } finally {
      notifications.choose = () => undefined;
    }
  });
});

describe('a handler that threw', () => {
  it('shows the request and a link to the source line, the same error at most once in its quiet time', async () => {
    const { EXCEPTION_QUIET_MS } = await import('../../../../src/vscode/receiver/workerProblems');
    let now = 0;
    const { view, report } = await problems(() => now);
    report(exception('kaboom'));
    for (now = 1; now < EXCEPTION_QUIET_MS; now += 100) report(exception('kaboom'));
    report(exception('another'));
    assert.deepEqual(
      notifications.shown.map((shown) => [shown.text, shown.items]),
      [
        ['Hookbench: POST /webhooks/github/acme threw kaboom', ['Open index.ts:14', 'Show Log']],
        ['Hookbench: POST /webhooks/github/acme threw another', ['Open index.ts:14', 'Show Log']],
      ],
    );
    now = EXCEPTION_QUIET_MS + 1;
    report(exception('kaboom'));
    assert.equal(notifications.shown.length, 3, 'shown again once its quiet time is over');
    view.dispose();
  });
});

describe('a worker that did not build at start', () => {
  it('starts the receiver again when a file its problems name is saved, and only then', async () => {
    const { startAgainOnSave } = await import('../../../../src/vscode/receiver/workerProblems');
    const reports = new Emitter<WorkerReport>();
    const receiver = {
      state: { kind: 'failed', message: 'the server exited with code 1' } as const,
      starts: 0,
      start: async () => (receiver.starts++, 'http://127.0.0.1:8787'),
    };
    const watching = startAgainOnSave(reports.event, receiver);
    reports.fire(failed);
    saved.fire({ uri: { fsPath: '/project/src/index.ts' } });
    assert.equal(receiver.starts, 0, 'a rebuild of a running serve takes care of itself');
    reports.fire(failedBuild('none'));
    saved.fire({ uri: { fsPath: '/project/src/other.ts' } });
    assert.equal(receiver.starts, 0, 'another file changes nothing');
    saved.fire({ uri: { fsPath: '/project/src/index.ts' } });
    assert.equal(receiver.starts, 1);
    watching.dispose();
  });
});
