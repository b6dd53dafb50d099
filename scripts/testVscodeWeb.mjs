// @ts-check
// Launcher 1 of the integration suite: a real VS Code (code-server) driven by Debian's Chromium.
// The workbench runs the Mocha suite in its Node extension host and calls `codeAutomationExit`
// with the result; this script streams the suite's report and exits with that code. It runs on
// the VS Codes HOOKBENCH_VSCODE picks (min: the engines minimum; latest: the newest code-server;
// both, the default), each with a trusted workspace, one it reloads and restarts, and a restricted one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chosenVscodes, ensureVscode, ensureWrangler, root } from './lib/setup.mjs';
import { failuresOf, runWorkbenchSuite as runSuite } from './lib/workbenchSuite.mjs';

export { CHROMIUM_ARGS } from './lib/workbenchSuite.mjs';

/** Each suite run's outcome, summed up at the end (CI shows a long log's tail only). @type {{ label: string, code: number, artifacts: string }[]} */
const outcomes = [];

/**
 * Runs one suite and notes its outcome for the summary.
 * @param {import('./lib/workbenchSuite.mjs').WorkbenchSuite} suite
 */
async function runWorkbenchSuite(suite) {
  const code = await runSuite(suite);
  outcomes.push({ label: `VS Code ${suite.vscode.vscodeVersion}, ${suite.name}`, code, artifacts: suite.artifacts });
  return code;
}

/** The bytes of the files a planted `.hookbench/` links to: the restricted suite checks they never change. */
export const VICTIM_TEXT = "# a file of the user's, outside the workspace\nexport PATH=$PATH\n";

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
  fs.writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({ 'hookbench.dataDirectory': '.hookbench', 'hookbench.receiver.autoStart': true }, null, 2),
  );
}

/**
 * The suite in one VS Code: the trusted workspace, then the restricted one. The minimum's logs go
 * to out/test/vscode-web(-restricted), the newest's to out/test/vscode-web-latest(-restricted);
 * screenshots the tests ask for always land in out/test/vscode-web, where the tests look.
 * @param {'min' | 'latest'} which
 */
async function runOn(which) {
  const vscode = await ensureVscode(which);
  const out = path.join(root, 'out', 'test');
  const base = which === 'min' ? 'vscode-web' : 'vscode-web-latest';
  const suite = {
    vscode,
    extensionPath: root,
    testsPath: path.join(out, 'integration', 'index'),
    screenshots: path.join(out, 'vscode-web'),
  };
  /** @param {string} workspace */
  const fixture = (workspace) => fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
  // HOOKBENCH_TEST_ONLY=trusted|reload|restricted runs one of the three; explorer-host runs the
  // explorer's benchmark in the extension host (bench/explorerHost.bench.ts), never part of npm test.
  const only = process.env.HOOKBENCH_TEST_ONLY;
  console.log(`\nVS Code ${vscode.vscodeVersion} (code-server ${vscode.version}) on Node ${vscode.nodeVersion}:`);
  // HOOKBENCH_PORT_SCAN=off runs it with VS Code's remote port scan off (scripts/lib/codeServer.mjs).
  if (only === 'explorer-host') {
    const portScan = process.env.HOOKBENCH_PORT_SCAN !== 'off';
    return runWorkbenchSuite({
      ...suite,
      name: 'explorerHost',
      portScan,
      artifacts: path.join(out, `${base}-explorer-host${portScan ? '' : '-no-scan'}`),
      prepare: fixture,
    });
  }
  // The real local runtime (wrangler dev, the differential suite's oracle) for "attach to wrangler dev".
  const oracle = only === 'restricted' || only === 'reload' ? undefined : await ensureWrangler();
  /** @param {string} workspace */
  const trustedFixture = (workspace) => {
    fixture(workspace);
    return oracle ? { HOOKBENCH_TEST_WRANGLER: oracle.wrangler, HOOKBENCH_TEST_ORACLE_MODULES: oracle.nodeModules } : {};
  };
  // An empty extension beside Hookbench: the floor of its activation time (test/integration/activation.test.ts).
  const floor = path.join(root, 'test', 'fixtures', 'activationFloor');
  const trusted =
    only === 'restricted' || only === 'reload'
      ? 0
      : await runWorkbenchSuite({ ...suite, name: 'trusted', artifacts: path.join(out, base), otherExtensions: [floor], prepare: trustedFixture });
  if (only === 'trusted') return trusted;
  // Hookbench's tabs across a window reload and a restart of code-server (test/integration/reload.test.ts).
  const runsReload = only === undefined || only === 'reload';
  if (runsReload) console.log(`\nReloaded (a window reload, then code-server restarted), code-server ${vscode.version}:`);
  const reloaded = !runsReload ? 0 : await runWorkbenchSuite({ ...suite, name: 'reload', artifacts: path.join(out, `${base}-reload`), prepare: fixture });
  if (only === 'reload') return reloaded;
  console.log(`\nRestricted mode (an untrusted workspace with a planted .hookbench/), code-server ${vscode.version}:`);
  const restricted = await runWorkbenchSuite({
    ...suite,
    name: 'restricted',
    restricted: true,
    artifacts: path.join(out, `${base}-restricted`),
    prepare: (workspace, stateDir) => {
      fixture(workspace);
      const victim = path.join(stateDir, 'victim-bashrc');
      plantRepository(workspace, victim);
      return { HOOKBENCH_TEST_VICTIM: victim };
    },
  });
  return trusted || reloaded || restricted;
}

async function main() {
  let code = 0;
  for (const which of chosenVscodes()) code = (await runOn(which)) || code;
  console.log('\nIntegration summary:');
  for (const { label, code: exit } of outcomes) console.log(`  ${exit === 0 ? '✔' : '✘'} ${label}${exit === 0 ? '' : ` (exit ${exit})`}`);
  for (const { label, artifacts } of outcomes.filter((run) => run.code !== 0)) {
    console.log(`\n${label} failed (${path.relative(root, artifacts)}):\n${failuresOf(artifacts)}`);
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
