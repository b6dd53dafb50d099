// @ts-check
// Launcher 2 of the integration suite, for machines that can download a desktop VS Code:
// @vscode/test-electron fetches one and runs the same Mocha suite in it.
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { root } from './lib/setup.mjs';

try {
  await runTests({
    version: process.env.HOOKBENCH_VSCODE_VERSION ?? '1.100.3',
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'out', 'test', 'integration', 'index'),
    launchArgs: [path.join(root, 'test', 'fixtures', 'workspace'), '--disable-extensions', '--disable-workspace-trust'],
  });
} catch (error) {
  console.error(error);
  process.exit(1);
}
