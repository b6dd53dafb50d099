// @ts-check
// Launcher 2 of the integration suite, for machines that can download a desktop VS Code:
// @vscode/test-electron fetches one and runs the same Mocha suite in it.
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { ensureWrangler, root } from './lib/setup.mjs';

try {
  // The real local runtime for the "attach to wrangler dev" test, as the web launcher passes it.
  const oracle = await ensureWrangler();
  await runTests({
    extensionTestsEnv: { HOOKBENCH_TEST_WRANGLER: oracle.wrangler, HOOKBENCH_TEST_ORACLE_MODULES: oracle.nodeModules },
    version: process.env.HOOKBENCH_VSCODE_VERSION ?? '1.100.3',
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'out', 'test', 'integration', 'index'),
    launchArgs: [path.join(root, 'test', 'fixtures', 'workspace'), '--disable-extensions', '--disable-workspace-trust'],
  });
} catch (error) {
  console.error(error);
  process.exit(1);
}
