/**
 * A dependency kept out of the main bundles and loaded on first use: from its own bundle beside
 * the running one (a build: dist/undici.js, dist/puppeteer.js), else the package from node_modules
 * (running from source or from a test bundle). A require made through createRequire is left for
 * run time by esbuild, so the dependency is neither read nor compiled with the bundle.
 */
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';

export function requireBeside<T>(bundle: string, packageName: string): T {
  const load = Module.createRequire(__filename);
  const bundled = path.join(__dirname, bundle);
  return (fs.existsSync(bundled) ? load(bundled) : load(packageName)) as T;
}
