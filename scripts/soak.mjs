// @ts-check
// `npm run soak -- --minutes 30`: builds the benchmarks and runs the soak (bench/soak.ts), which
// writes bench/results/<date>-soak.json and .md. Exits 1 when anything acknowledged was lost.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { run } from './lib/run.mjs';
import { ensureNpmPackages, root } from './lib/setup.mjs';

await ensureNpmPackages();
await run(process.execPath, ['esbuild.js', '--bench'], { cwd: root });
await run(process.execPath, ['esbuild.js'], { cwd: root });
const result = spawnSync(process.execPath, [path.join(root, 'out', 'bench', 'soak.js'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
