// @ts-check
// `npm test`: set-up (idempotent, quick when done), build, type check and lint, unit tests with
// Node's test runner, the differential suite (wrangler dev as the oracle, installed into the tools
// cache on the first run), the integration suite inside a real VS Code (the engines minimum and the
// newest; HOOKBENCH_VSCODE=min|latest|both, both by default), then the packages users install.
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
  await run(process.execPath, ['--test', '--test-reporter=spec', '--test-reporter-destination=stdout', 'out/test/unit'], { cwd: root });
  step('Differential suite (the same workers and requests on wrangler dev and on hookbench serve)');
  await run(process.execPath, ['scripts/testDifferential.mjs'], { cwd: root });
  step('Integration tests (VS Code in Chromium)');
  await run(process.execPath, ['scripts/testVscodeWeb.mjs'], { cwd: root });
  step('The package as installed (every platform\'s .vsix, then the installed one in VS Code)');
  await run(process.execPath, ['scripts/testPackage.mjs'], { cwd: root });
  step(`All tests passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`\n✘ ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
