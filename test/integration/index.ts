// The integration suite's entry, loaded by VS Code as `extensionTestsPath` (in code-server or in
// a desktop VS Code). VS Code reports a rejected `run()` as a failed run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { FileReporter } from './reporter';

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, reporter: FileReporter as never });
  const grep = process.env['HOOKBENCH_TEST_GREP'];
  if (grep) mocha.grep(grep);
  // The launcher runs the suite three times: in a trusted workspace (every file but the two
  // below), in an untrusted one with a planted .hookbench/ (restricted.test.js alone), and in a
  // workspace whose window it reloads and whose code-server it restarts (reload.test.js alone).
  // The explorer-host benchmark (explorerHost.test.js) runs alone too, only when a bench asks.
  const own: Record<string, string> = { restricted: 'restricted.test.js', reload: 'reload.test.js', explorerHost: 'explorerHost.test.js' };
  const mine = own[process.env['HOOKBENCH_TEST_SUITE'] ?? ''];
  const others = new Set(Object.values(own));
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (file.endsWith('.test.js') && (mine ? file === mine : !others.has(file))) mocha.addFile(path.join(__dirname, file));
  }
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new Error(`${failures} integration test(s) failed`);
}
