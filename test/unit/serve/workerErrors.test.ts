// The user's worker fails where a developer looks: stacks in 500 bodies and the log name the
// TypeScript file and line, and serve reports a build or load failure (and the recovery) as a
// structured line the extension reads (src/core/contract/workerProblems.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseLogLine } from '../../../src/core/log';
import { parseWorkerException, parseWorkerStatus, type WorkerStatus } from '../../../src/core/contract/workerProblems';
import * as esbuild from 'esbuild';
import { lineLogger } from '../../../src/core/log';
import { bundleWorker } from '../../../src/runtime/worker/loader';
import { startServe as startInProcess } from '../../../src/serve/startServe';
import { buildSettings } from '../../../src/serve/workerHost';
import { startServe } from '../helpers/serveProcess';
import { serveFixture, type Served } from '../helpers/serveWorker';

/** A worker whose `fail` throws at line 14 column 9 of its source; type-only lines make its bundle's lines differ. */
const WORKER = `interface Env {
  readonly GREETING: string;
}

type Handler = (request: Request, env: Env) => Promise<Response>;

const fetchHandler: Handler = async (request) => {
  const url = new URL(request.url);
  if (url.pathname === '/boom') fail('kaboom');
  return new Response('ok');
};

function fail(message: string): never {
  throw new Error(message);
}

export default { fetch: fetchHandler };
`;
const THROW_LINE = 14;

function project(worker = WORKER): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-errors-'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'index.ts'), worker);
  fs.writeFileSync(path.join(root, 'wrangler.jsonc'), '{ "name": "errors", "main": "src/index.ts", "compatibility_date": "2025-06-01" }\n');
  return root;
}

function statuses(served: Served): WorkerStatus[] {
  return served.logs.map((line) => parseWorkerStatus(parseLogLine(line)?.message ?? '')).filter((s) => s !== undefined);
}

function until(what: string, done: () => boolean, served: Served): Promise<void> {
  return served.logged(what, done);
}

describe('stack traces of the user worker', () => {
  it('answers 500 with a stack that names src/index.ts at the line that threw, and reports the exception with its request', async () => {
    const root = project();
    const served = await serveFixture('errors', { root });
    try {
      // A client that takes no HTML gets the plain stack (an HTML one, the error page with it).
      const response = await fetch(`${served.url}/boom`, { headers: { accept: 'application/json' } });
      assert.equal(response.status, 500);
      const body = await response.text();
      assert.match(body, new RegExp(`^Error: kaboom\\n\\s+at fail \\(src/index\\.ts:${THROW_LINE}:9\\)`), body);
      assert.match(body, /at Object.fetchHandler \[as fetch\] \(src\/index\.ts:9:33\)/);
      assert.ok(
        served.logs.some((line) => line.includes(`src/index.ts:${THROW_LINE}:9`)),
        'the log names the source line too',
      );
      const exceptions = served.logs.map((line) => parseWorkerException(parseLogLine(line)?.message ?? '')).filter((e) => e !== undefined);
      assert.deepEqual(exceptions, [
        { method: 'GET', path: '/boom', message: 'kaboom', location: { file: path.join(root, 'src', 'index.ts'), line: THROW_LINE, column: 9 } },
      ]);
      assert.deepEqual(statuses(served), [{ state: 'ok' }]);
    } finally {
      await served.stop();
    }
  });

  it('maps the stack under hookbench serve --worker, the real process', async () => {
    const root = project();
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-errors-data-'));
    const server = await startServe([
      '--worker',
      path.join(root, 'src', 'index.ts'),
      '--config',
      path.join(root, 'wrangler.jsonc'),
      '--data',
      data,
      '--no-render',
    ]);
    try {
      const body = await (await fetch(`${server.url}/boom`)).text();
      assert.match(body, new RegExp(`at fail \\(src/index\\.ts:${THROW_LINE}:9\\)`), body);
      assert.match(server.stderr(), new RegExp(`\\[worker\\] exception .*"line":${THROW_LINE}`));
    } finally {
      await server.stop();
    }
  });

  it('maps a bundle built ahead, as hookbench chaos runs one for all its runs', async () => {
    const root = project();
    const entry = path.join(root, 'src', 'index.ts');
    // An ES module bundle, as chaos writes the user's worker (`.mjs`).
    const prebuilt = path.join(root, 'bundle.mjs');
    fs.writeFileSync(prebuilt, (await bundleWorker(esbuild, entry, buildSettings({ config: undefined }))).code);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-errors-data-'));
    const server = await startInProcess({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      logger: lineLogger(() => undefined),
      worker: { entry, prebuilt, config: undefined, secrets: {}, watch: false },
    });
    try {
      const body = await (await fetch(`${server.url}/boom`)).text();
      assert.match(body, new RegExp(`at fail \\(.*src/index\\.ts:${THROW_LINE}:9\\)`), body);
    } finally {
      await server.stop();
    }
  });
});

describe('handlers the platform calls', () => {
  it("reports a queue() that throws as an exception of the queue, at its source line, as a request's is", async () => {
    const root = project(`export default {
  async fetch(request: Request, env: { JOBS: Queue }) {
    await env.JOBS.send({ job: 1 });
    return new Response('queued');
  },
  async queue(batch: MessageBatch) {
    throw new Error(\`cannot run \${batch.messages.length} job\`);
  },
};
`);
    fs.writeFileSync(
      path.join(root, 'wrangler.jsonc'),
      JSON.stringify({
        name: 'errors',
        main: 'src/index.ts',
        compatibility_date: '2025-06-01',
        queues: { producers: [{ binding: 'JOBS', queue: 'jobs' }], consumers: [{ queue: 'jobs', max_batch_size: 1, max_batch_timeout: 0, max_retries: 0 }] },
      }),
    );
    const served = await serveFixture('errors', { root });
    try {
      assert.equal(await (await fetch(`${served.url}/`)).text(), 'queued');
      const exceptions = () => served.logs.map((line) => parseWorkerException(parseLogLine(line)?.message ?? '')).filter((e) => e !== undefined);
      await until('the queue() exception report', () => exceptions().length > 0, served);
      assert.deepEqual(exceptions()[0], {
        method: 'queue()',
        path: 'jobs',
        message: 'cannot run 1 job',
        location: { file: path.join(root, 'src', 'index.ts'), line: 7, column: 11 },
      });
    } finally {
      await served.stop();
    }
  });
});

describe('build and load failures of the user worker', () => {
  it('reports a syntax error after a save with its file, line and column, keeps serving the previous build, and reports the recovery', async () => {
    const root = project();
    const file = path.join(root, 'src', 'index.ts');
    const served = await serveFixture('errors', { root, watch: true });
    try {
      fs.writeFileSync(file, WORKER.replace("return new Response('ok');", "return new Response('ok'));"));
      await until('a failed status', () => statuses(served).some((s) => s.state === 'failed'), served);
      const failed = statuses(served).find((s) => s.state === 'failed');
      assert.equal(failed?.state, 'failed');
      assert.equal(failed.serving, 'previous');
      assert.equal(failed.problems.length, 1);
      assert.equal(failed.problems[0]!.kind, 'build');
      assert.deepEqual(failed.problems[0]!.location, { file, line: 10, column: 28 });
      assert.match(failed.problems[0]!.message, /Expected ";" but found "\)"/);
      assert.equal(await (await fetch(`${served.url}/`)).text(), 'ok', 'the previous build still answers');

      fs.writeFileSync(file, WORKER.replace("return new Response('ok');", "return new Response('fixed');"));
      await until('the recovery', () => statuses(served).at(-1)?.state === 'ok' && statuses(served).length === 3, served);
      assert.deepEqual(
        statuses(served).map((s) => s.state),
        ['ok', 'failed', 'ok'],
      );
      assert.equal(await (await fetch(`${served.url}/`)).text(), 'fixed');
    } finally {
      await served.stop();
    }
  });

  it('reports a worker whose top level throws as a load problem at its source line, and refuses to start', async () => {
    const root = project(
      `const limit: number = Number('x');\nif (Number.isNaN(limit)) throw new Error('LIMIT is not a number');\nexport default { fetch: () => new Response('ok') };\n`,
    );
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-errors-data-'));
    await assert.rejects(
      startServe(['--worker', path.join(root, 'src', 'index.ts'), '--config', path.join(root, 'wrangler.jsonc'), '--data', data, '--no-render']),
      (error: Error) => {
        const line = error.message.split('\n').find((l) => l.includes('[worker] status'));
        const status = parseWorkerStatus(parseLogLine(line ?? '')?.message ?? '');
        assert.deepEqual(status, {
          state: 'failed',
          serving: 'none',
          problems: [{ kind: 'load', message: 'LIMIT is not a number', location: { file: path.join(root, 'src', 'index.ts'), line: 2, column: 32 } }],
        });
        return true;
      },
    );
  });
});

describe('the worker problems contract', () => {
  it('reads back what serve writes, and nothing malformed', async () => {
    const { workerStatusMessage, workerExceptionMessage } = await import('../../../src/core/contract/workerProblems');
    const status: WorkerStatus = {
      state: 'failed',
      serving: 'previous',
      problems: [{ kind: 'build', message: 'Expected ";"', location: { file: '/p/src/index.ts', line: 3, column: 7 } }],
    };
    assert.deepEqual(parseWorkerStatus(workerStatusMessage(status)), status);
    assert.deepEqual(parseWorkerStatus(workerStatusMessage({ state: 'ok' })), { state: 'ok' });
    const exception = { method: 'POST', path: '/webhooks/github', message: 'boom' };
    assert.deepEqual(parseWorkerException(workerExceptionMessage(exception)), exception);
    assert.equal(
      parseWorkerStatus(
        '[worker] status {"state":"failed","serving":"previous","problems":[{"kind":"build","message":"x","location":{"file":"/a","line":0,"column":1}}]}',
      ),
      undefined,
    );
    assert.equal(parseWorkerStatus('[worker] status {not json'), undefined);
    assert.equal(parseWorkerException('[worker] exception {"method":"GET"}'), undefined);
    assert.equal(parseWorkerStatus('[worker] reloaded after a source change'), undefined);
  });
});
