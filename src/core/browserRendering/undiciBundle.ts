/**
 * The entry of dist/undici.js: undici (1 MB, half of the extension's bundle) in a bundle of its
 * own, loaded by the render client's first request (loadUndici.ts), so that neither activating
 * the extension nor starting `hookbench serve` reads and compiles it.
 */
export { request } from 'undici';
