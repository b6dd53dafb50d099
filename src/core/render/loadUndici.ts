/**
 * undici, loaded by the render client's first request rather than with the bundle: from
 * dist/undici.js beside the running bundle (a build), else from node_modules (running from source
 * or from a test bundle). A require made through createRequire is left for run time by esbuild.
 */
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import type * as Undici from 'undici';

let loaded: Pick<typeof Undici, 'request'> | undefined;

export function loadUndici(): Pick<typeof Undici, 'request'> {
  if (loaded) return loaded;
  const load = Module.createRequire(__filename);
  const bundled = path.join(__dirname, 'undici.js');
  loaded = (fs.existsSync(bundled) ? load(bundled) : load('undici')) as Pick<typeof Undici, 'request'>;
  return loaded;
}
