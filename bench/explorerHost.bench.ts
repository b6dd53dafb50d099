// The explorer in the real extension host (issue 29): test/integration/explorerHost.test.ts run in
// a code-server by the integration launcher (HOOKBENCH_TEST_ONLY=explorer-host), its figures read
// from the launcher's output. The extension host runs on the VS Code's own Node, so this suite
// runs once per VS Code: the oldest supported one (code-server 4.100, Node 20) in the Node 20
// round, the newest (code-server 4.139, Node 24) in the Node 24 round; other rounds skip it.
// HOOKBENCH_EXPLORER_SECONDS (30), _RATE (200/s), _ENTITIES (1000) and _PROFILE (a path prefix: CPU
// profiles of the extension host over the quiet and the loaded window) reach the test.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { benchSeconds, report, type BenchResult } from './harness';

/** The bound for the extension host under this load, in percent of one core. */
const HOST_TARGET_PERCENT = 5;

const VSCODE_BY_NODE: Record<string, 'min' | 'latest'> = { '20': 'min', '24': 'latest' };

function main(): void {
  const which = VSCODE_BY_NODE[process.versions.node.split('.')[0]!];
  if (!which) return;
  const seconds = String(process.env.HOOKBENCH_EXPLORER_SECONDS ?? benchSeconds(30, 15));
  const run = spawnSync(process.execPath, [path.join(process.cwd(), 'scripts', 'testVscodeWeb.mjs')], {
    cwd: process.cwd(),
    encoding: 'utf8',
    env: { ...process.env, HOOKBENCH_TEST_ONLY: 'explorer-host', HOOKBENCH_VSCODE: which, HOOKBENCH_EXPLORER_SECONDS: seconds },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const figures = new Map([...run.stdout.matchAll(/^figure: explorer host: (.+?): (.+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const number = (name: string) => Number.parseFloat(figures.get(name) ?? 'NaN');
  if (run.status !== 0 || figures.size === 0) {
    process.stderr.write(run.stdout.slice(-4000));
    throw new Error(`the explorer-host suite exited with ${run.status} on VS Code ${which}`);
  }
  const host = number('extension host CPU under the load');
  const quiet = number('extension host CPU, views open, no traffic');
  const serve = number('serve CPU under the load');
  const plan = `${figures.get('webhooks sent')}, VS Code ${which === 'min' ? '1.100' : '1.139'}`;
  const results: BenchResult[] = [
    { name: `extension host CPU (% of a core) under the load: ${plan}`, unit: '%', value: host, baseline: 'target (%)', baselineValue: HOST_TARGET_PERCENT, ratio: HOST_TARGET_PERCENT / host, target: 1 },
    { name: 'extension host CPU (% of a core), the same views open, no traffic', unit: '%', value: quiet, baseline: 'under the load (%)', baselineValue: host, ratio: quiet / host },
    { name: 'serve CPU (% of a core) under the load, with the explorer', unit: '%', value: serve, baseline: 'serve with no traffic (%)', baselineValue: number('serve CPU, no traffic'), ratio: number('serve CPU, no traffic') / serve },
    { name: 'admin requests per webhook under the load', unit: 'requests', value: number('admin requests per webhook under the load'), baseline: 'none expected', baselineValue: 0, ratio: 0 },
  ];
  report('explorerHost', results);
}

main();
