// The installed-package smoke suite's entry (scripts/testPackage.mjs): VS Code runs it beside a
// harness extension, against Hookbench installed from its .vsix with --install-extension.
import * as path from 'node:path';
import Mocha from 'mocha';
import { FileReporter } from '../reporter';

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, reporter: FileReporter as never });
  const grep = process.env['HOOKBENCH_TEST_GREP'];
  if (grep) mocha.grep(grep);
  mocha.addFile(path.join(__dirname, 'installed.test.js'));
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new Error(`${failures} smoke test(s) failed`);
}
