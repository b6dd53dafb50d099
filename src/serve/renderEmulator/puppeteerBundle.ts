/**
 * The entry of dist/puppeteer.js: puppeteer-core and its dependencies (half of what the CLI
 * bundle held) in a bundle of their own, loaded on the first render by loadPuppeteer.ts, so that
 * `hookbench serve` does not read and evaluate them to start.
 */
export { default } from 'puppeteer-core';
