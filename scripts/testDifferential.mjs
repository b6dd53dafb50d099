// @ts-check
// `npm run test:differential`: the differential suite (test/differential): every area's fixture
// worker and steps run against the real local runtime (wrangler dev, installed into the tools
// cache) and against `hookbench serve --worker`, compared step by step. HOOKBENCH_AREA=<name>
// runs one area. Exits 1 on any difference.
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { run, step } from './lib/run.mjs';
import { ensureWrangler, root } from './lib/setup.mjs';

try {
  const { wrangler, nodeModules } = await ensureWrangler();
  step('Build (dist/cli.js and the runner)');
  await run(process.execPath, ['esbuild.js'], { cwd: root });
  const runner = path.join(root, 'out', 'differential', 'run.js');
  await esbuild.build({ entryPoints: [path.join(root, 'test', 'differential', 'run.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: runner, packages: 'external', logLevel: 'warning' });
  step(`Differential suite: wrangler dev (the oracle) against hookbench serve${process.env.HOOKBENCH_AREA ? `, area ${process.env.HOOKBENCH_AREA}` : ''}`);
  await run(process.execPath, [runner, '--root', root, '--wrangler', wrangler, '--oracle-modules', nodeModules, '--cli', path.join(root, 'dist', 'cli.js')], { cwd: root });
} catch (error) {
  console.error(`\n✘ ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
