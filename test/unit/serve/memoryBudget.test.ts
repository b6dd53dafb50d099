// `hookbench serve --memory-budget` as a real process: more entities than the budget holds awake,
// driven at once; every request answers, every acknowledged write reads back after its instance
// was put to sleep and woken again.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startServe } from '../helpers/serveProcess';
import { projectRoot } from '../helpers/serveWorker';

const TOKEN = 'memory-budget-test-token';
const ENTITIES = 24;
const ROUNDS = 4;

describe('serve --memory-budget', () => {
  it('puts instances to sleep past the budget with no request failed and every acknowledged write kept', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-budget-serve-'));
    const worker = path.join(projectRoot(), 'test', 'fixtures', 'workers', 'counter', 'src', 'index.ts');
    // About two counter instances fit in 1 MiB (instanceSleeper.ts, INSTANCE_OVERHEAD_BYTES).
    const server = await startServe(['--worker', worker, '--data', data, '--no-watch', '--no-render', '--memory-budget', '1'], {
      HOOKBENCH_ADMIN_TOKEN: TOKEN,
    });
    try {
      const names = Array.from({ length: ENTITIES }, (_, i) => `entity-${i}`);
      for (let round = 0; round < ROUNDS; round++) {
        const answers = await Promise.all(
          names.map(async (name) => {
            const response = await fetch(`${server.url}/agents/counter-agent/${name}`, { method: 'POST', body: `r${round}` });
            return [response.status, await response.text()];
          }),
        );
        assert.deepEqual(
          answers,
          names.map(() => [200, String(round + 1)]),
          `round ${round}: every push answered with its count`,
        );
      }
      const listed = (await (await fetch(`${server.url}/__hookbench/instances`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
        instances: { name: string; awake: boolean }[];
      };
      const awake = listed.instances.filter((i) => i.awake).length;
      assert.ok(awake <= ENTITIES / 4, `most instances are asleep (${awake} of ${ENTITIES} awake)`);
      for (const name of names) {
        const read = (await (await fetch(`${server.url}/agents/counter-agent/${name}?list`)).json()) as { hits: number; who: string[] };
        assert.deepEqual(read.who, ['r0', 'r1', 'r2', 'r3'], `${name} kept every acknowledged write`);
      }
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('refuses a budget that is not a number, in one line', async () => {
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(process.execPath, [path.join(projectRoot(), 'dist', 'cli.js'), 'serve', '--memory-budget', 'lots'], { encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.equal(result.stderr.split('\n')[0], 'hookbench serve: --memory-budget is a number, 0 or more');
  });
});
