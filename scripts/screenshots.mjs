// @ts-check
// `npm run screenshots`: the README's screenshots (media/screenshots/*.png), captured from this
// build: this machine's package is built (scripts/package.mjs), installed into the newest
// code-server with --install-extension, and the scenes of test/integration/screenshots stage
// the workbench (signed webhooks in the views, a render in the preview) and capture it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import esbuild from 'esbuild';
import { buildPackages, packagePath } from './package.mjs';
import { step } from './lib/run.mjs';
import { ensureVscode, root } from './lib/setup.mjs';
import { runWorkbenchSuite } from './lib/workbenchSuite.mjs';

const target = `${process.platform}-${process.arch}`;
const screenshots = path.join(root, 'media', 'screenshots');
const out = path.join(root, 'out', 'test', 'screenshots');

async function main() {
  step(`Package for ${target}`);
  await buildPackages([target]);
  fs.rmSync(out, { recursive: true, force: true });
  await esbuild.build({
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    external: ['vscode'],
    logLevel: 'warning',
    entryPoints: [path.join(root, 'test', 'integration', 'screenshots', 'index.ts')],
    outdir: out,
  });
  const vscode = await ensureVscode('latest');
  step(`Screenshots in VS Code ${vscode.vscodeVersion} (code-server ${vscode.version})`);
  fs.mkdirSync(screenshots, { recursive: true });
  const code = await runWorkbenchSuite({
    vscode,
    name: 'screenshots',
    install: { vsix: packagePath(target), id: 'hookbench.hookbench' },
    testsPath: path.join(out, 'index'),
    artifacts: path.join(out, 'artifacts'),
    screenshots,
    prepare: (workspace) => {
      fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
      return { HOOKBENCH_SCREENSHOTS_DIR: screenshots };
    },
  });
  if (code !== 0) throw new Error(`the scenes failed (${code}); logs in ${path.relative(root, out)}/artifacts`);
  for (const file of fs.readdirSync(screenshots))
    console.log(`  media/screenshots/${file}  ${(fs.statSync(path.join(screenshots, file)).size / 1e3).toFixed(0)} kB`);
}

main().catch((error) => {
  console.error(`\n✘ ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
