/**
 * dist/cli.js: runs the CLI bundle beside it (dist/cliMain.js, built from src/cli.ts) from V8's
 * code cache (src/codeCache.ts). Compiling the bundle was the larger part of `hookbench serve`'s
 * start (docs/performance.md, "Start").
 */
import * as path from 'node:path';
import { runFromCodeCache } from './codeCache';
import { allocatorEnvironment, followParent, runAgainWith } from './serveAllocator';

// `serve` started without its allocator settings runs again as a child that has them (src/serveAllocator.ts).
const env = allocatorEnvironment(process.argv.slice(2), process.env, process.platform);
if (env) runAgainWith(env);
else {
  followParent(process.env);
  runFromCodeCache({ main: path.join(__dirname, 'cliMain.js'), name: 'cli', saveAfterMs: 2_000 });
}
