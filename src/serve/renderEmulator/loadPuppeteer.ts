/** puppeteer-core, loaded when the first browser is launched rather than when serve starts (dist/puppeteer.js). */
import type { PuppeteerNode } from 'puppeteer-core';
import { requireBeside } from '../../core/requireBeside';

export function loadPuppeteer(): PuppeteerNode {
  return requireBeside<{ default: PuppeteerNode }>('puppeteer.js', 'puppeteer-core').default;
}
