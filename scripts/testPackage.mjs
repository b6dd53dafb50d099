// @ts-check
// `npm run test:package`: what users install. Builds every platform's package (scripts/package.mjs),
// checks them (test/package: contents against the allow list, size budget, native binaries by
// header, the linux-x64 esbuild run), then installs this machine's package into code-server with
// --install-extension and runs the smoke suite (test/integration/smoke) against it, on the VS Codes
// HOOKBENCH_VSCODE picks. HOOKBENCH_PACKAGE_BUILT=1 reuses packages/ as built.
import * as fs from 'node:fs';
import * as path from 'node:path';
import esbuild from 'esbuild';
import { buildPackages, packagePath } from './package.mjs';
import { run, step } from './lib/run.mjs';
import { chosenVscodes, ensureVscode, root } from './lib/setup.mjs';
import { runWorkbenchSuite } from './lib/workbenchSuite.mjs';

const out = path.join(root, 'out', 'test');

/** The test bundles of this launcher, built here (out/test/package, out/test/smoke). */
async function buildTests() {
  const common = /** @type {const} */ ({ bundle: true, platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning', packages: 'external' });
  fs.rmSync(path.join(out, 'package'), { recursive: true, force: true });
  fs.rmSync(path.join(out, 'smoke'), { recursive: true, force: true });
  await esbuild.build({
    ...common,
    // Top-level await (the targets table is read from scripts/): ES modules.
    format: 'esm',
    entryPoints: [path.join(root, 'test', 'package', 'vsix.test.ts')],
    outdir: path.join(out, 'package'),
    outExtension: { '.js': '.mjs' },
  });
  await esbuild.build({
    ...common,
    format: 'cjs',
    external: ['vscode'],
    entryPoints: ['index.ts', 'installed.test.ts'].map((file) => path.join(root, 'test', 'integration', 'smoke', file)),
    outdir: path.join(out, 'smoke'),
  });
}

/** @param {'min' | 'latest'} which */
async function smoke(which) {
  const vscode = await ensureVscode(which);
  const target = `${process.platform}-${process.arch}`;
  console.log(
    `\nThe installed package (${path.basename(packagePath(target))}) in VS Code ${vscode.vscodeVersion} (code-server ${vscode.version}) on Node ${vscode.nodeVersion}:`,
  );
  return runWorkbenchSuite({
    vscode,
    name: 'smoke',
    install: { vsix: packagePath(target), id: 'hookbench.hookbench' },
    testsPath: path.join(out, 'smoke', 'index'),
    artifacts: path.join(out, `vscode-package-${which}`),
    prepare: (workspace) => {
      fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
      fs.cpSync(path.join(root, 'test', 'fixtures', 'workers', 'counter'), path.join(workspace, 'counter'), { recursive: true });
    },
  });
}

async function main() {
  if (process.env.HOOKBENCH_PACKAGE_BUILT !== '1') {
    step('Packages (npm run package: one per platform)');
    await buildPackages();
  }
  await buildTests();
  step('Package checks');
  await run(process.execPath, ['--test', '--test-reporter=spec', '--test-reporter-destination=stdout', path.join(out, 'package')], { cwd: root });
  step('The installed package in VS Code');
  let code = 0;
  for (const which of chosenVscodes()) code = (await smoke(which)) || code;
  return code;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`\n✘ ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
