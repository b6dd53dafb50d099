// @ts-check
// `npm test`: set-up (idempotent, quick when done), build, type check and lint, unit tests with
// Node's test runner, the differential suite (wrangler dev as the oracle, installed into the tools
// cache on the first run), the integration suite inside a real VS Code (the engines minimum and the
// newest; HOOKBENCH_VSCODE=min|latest|both, both by default), then the packages users install.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run, step } from './lib/run.mjs';
import { ensureAll, root } from './lib/setup.mjs';

const started = Date.now();
try {
  step('Set-up');
  await ensureAll();
  step('Build');
  await run(process.execPath, ['esbuild.js', '--tests'], { cwd: root });
  step('Check (tsc, eslint)');
  await run('npm', ['run', '--silent', 'check'], { cwd: root });
  step('Unit tests');
  // The unit tests' data folders, journals and homes go in a temporary folder of this run's, removed
  // after it: a test that fails or is killed leaves nothing in the system's /tmp. Sticky and open
  // to all like /tmp itself, for the tests that act as another user (runuser -u nobody).
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-unit-'));
  fs.chmodSync(scratch, 0o1777);
  try {
    await run(process.execPath, ['--test', '--test-reporter=spec', '--test-reporter-destination=stdout', 'out/test/unit'], {
      cwd: root,
      env: { ...process.env, TMPDIR: scratch },
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  step('Differential suite (the same workers and requests on wrangler dev and on hookbench serve)');
  await run(process.execPath, ['scripts/testDifferential.mjs'], { cwd: root });
  step('Integration tests (VS Code in Chromium)');
  await run(process.execPath, ['scripts/testVscodeWeb.mjs'], { cwd: root });
  step("The package as installed (every platform's .vsix, then the installed one in VS Code)");
  await run(process.execPath, ['scripts/testPackage.mjs'], { cwd: root });
  step(`All tests passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`\n✘ ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
