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

/** One run of the suite on VS Code `which`: reads its figures by name, as a number or as printed. */
function runSuite(which: 'min' | 'latest', seconds: string, portScan: boolean): { number: (name: string) => number; text: (name: string) => string } {
  const run = spawnSync(process.execPath, [path.join(process.cwd(), 'scripts', 'testVscodeWeb.mjs')], {
    cwd: process.cwd(),
    encoding: 'utf8',
    env: {
      ...process.env,
      HOOKBENCH_TEST_ONLY: 'explorer-host',
      HOOKBENCH_VSCODE: which,
      HOOKBENCH_EXPLORER_SECONDS: seconds,
      HOOKBENCH_PORT_SCAN: portScan ? 'on' : 'off',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const figures = new Map([...run.stdout.matchAll(/^figure: explorer host: (.+?): (.+)$/gm)].map((m) => [m[1]!, m[2]!]));
  if (run.status !== 0 || figures.size === 0) {
    process.stderr.write(run.stdout.slice(-4000));
    throw new Error(`the explorer-host suite exited with ${run.status} on VS Code ${which}${portScan ? '' : ' (port scan off)'}`);
  }
  return { number: (name) => Number.parseFloat(figures.get(name) ?? 'NaN'), text: (name) => figures.get(name) ?? '?' };
}

function main(): void {
  const which = VSCODE_BY_NODE[process.versions.node.split('.')[0]!];
  if (!which) return;
  const seconds = String(process.env.HOOKBENCH_EXPLORER_SECONDS ?? benchSeconds(30, 15));
  // Desktop VS Code runs the extension host on the user's machine; code-server's is a remote one,
  // and a remote host scans the machine for listening ports every few seconds whatever the
  // extensions (scripts/lib/codeServer.mjs). The target is read as a desktop user gets it, with
  // the scan off; the same views with code-server's default are measured beside it, in turn.
  const desktop = runSuite(which, seconds, false);
  const remote = runSuite(which, seconds, true);
  const host = desktop.number('extension host CPU under the load');
  const quiet = desktop.number('extension host CPU, views open, no traffic');
  const serve = desktop.number('serve CPU under the load');
  const plan = `${desktop.text('webhooks sent')}, VS Code ${which === 'min' ? '1.100' : '1.139'}`;
  const remoteHost = remote.number('extension host CPU under the load');
  const remoteQuiet = remote.number('extension host CPU, views open, no traffic');
  const serveQuiet = desktop.number('serve CPU, no traffic');
  const results: BenchResult[] = [
    {
      name: `extension host CPU under the load, VS Code's port scan off as in desktop VS Code (% of a core): ${plan}`,
      unit: '%',
      value: host,
      baseline: 'target (%)',
      baselineValue: HOST_TARGET_PERCENT,
      ratio: HOST_TARGET_PERCENT / host,
      target: 1,
    },
    {
      name: 'extension host CPU with no traffic, port scan off (% of a core), the same views open',
      unit: '%',
      value: quiet,
      baseline: 'under the load (%)',
      baselineValue: host,
      ratio: quiet / host,
    },
    {
      name: "extension host CPU under the load, code-server's default with its port scan (% of a core)",
      unit: '%',
      value: remoteHost,
      baseline: 'port scan off (%)',
      baselineValue: host,
      ratio: host / remoteHost,
    },
    {
      name: "extension host CPU with no traffic, code-server's default (% of a core)",
      unit: '%',
      value: remoteQuiet,
      baseline: 'under the load, the same (%)',
      baselineValue: remoteHost,
      ratio: remoteQuiet / remoteHost,
    },
    {
      name: 'serve CPU under the load, with the explorer (% of a core)',
      unit: '%',
      value: serve,
      baseline: 'serve with no traffic (%)',
      baselineValue: serveQuiet,
      ratio: serveQuiet / serve,
    },
    {
      name: 'admin requests per webhook under the load',
      unit: 'requests',
      value: desktop.number('admin requests per webhook under the load'),
      baseline: 'none expected',
      baselineValue: 0,
      ratio: 0,
    },
  ];
  report('explorerHost', results);
}

main();
