/**
 * puppeteer-core, loaded when the first browser is launched rather than when the serve process
 * starts: from dist/puppeteer.js beside the running bundle (a build), else from node_modules
 * (running from source). A require made through createRequire is left for run time by esbuild.
 */
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import type { PuppeteerNode } from 'puppeteer-core';

export function loadPuppeteer(): PuppeteerNode {
  const load = Module.createRequire(__filename);
  const bundled = path.join(__dirname, 'puppeteer.js');
  const loaded = (fs.existsSync(bundled) ? load(bundled) : load('puppeteer-core')) as { default: PuppeteerNode };
  return loaded.default;
}
