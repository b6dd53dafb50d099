// @ts-check
// `npm run test:differential`: the differential suite (test/differential): every area's fixture
// worker and steps run against the real local runtime (wrangler dev, installed into the tools
// cache) and against `hookbench serve --worker`, compared step by step. HOOKBENCH_AREA=<name>
// runs one area. Exits 1 on any difference.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { run, step } from './lib/run.mjs';
import { ensureAreaModules, ensureWrangler, root } from './lib/setup.mjs';

/**
 * The packages of the chosen areas that bring a lockfile of their own, by folder.
 * @returns {Promise<Record<string, string>>}
 */
async function areaModules() {
  const areasDir = path.join(root, 'test', 'differential', 'areas');
  const wanted = process.env.HOOKBENCH_AREA?.split(',')
    .map((name) => name.trim().split(':')[0])
    .filter(Boolean);
  /** @type {Record<string, string>} */
  const modules = {};
  for (const folder of fs.readdirSync(areasDir)) {
    if (wanted && !wanted.includes(folder)) continue;
    if (fs.existsSync(path.join(areasDir, folder, 'package-lock.json'))) modules[folder] = await ensureAreaModules(path.join(areasDir, folder));
  }
  return modules;
}

try {
  const { wrangler, nodeModules } = await ensureWrangler();
  const modules = await areaModules();
  step('Build (dist/cli.js and the runner)');
  await run(process.execPath, ['esbuild.js'], { cwd: root });
  const runner = path.join(root, 'out', 'differential', 'run.js');
  await esbuild.build({
    entryPoints: [path.join(root, 'test', 'differential', 'run.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: runner,
    packages: 'external',
    logLevel: 'warning',
  });
  step(`Differential suite: wrangler dev (the oracle) against hookbench serve${process.env.HOOKBENCH_AREA ? `, area ${process.env.HOOKBENCH_AREA}` : ''}`);
  await run(
    process.execPath,
    [
      runner,
      '--root',
      root,
      '--wrangler',
      wrangler,
      '--oracle-modules',
      nodeModules,
      '--area-modules',
      JSON.stringify(modules),
      '--cli',
      path.join(root, 'dist', 'cli.js'),
    ],
    { cwd: root },
  );
} catch (error) {
  console.error(`\n✘ ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
