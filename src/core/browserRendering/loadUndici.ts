/** undici, loaded by the render client's first request rather than with the bundle (dist/undici.js). */
import type * as Undici from 'undici';
import { requireBeside } from '../requireBeside';

let loaded: Pick<typeof Undici, 'request'> | undefined;

export function loadUndici(): Pick<typeof Undici, 'request'> {
  loaded ??= requireBeside<Pick<typeof Undici, 'request'>>('undici.js', 'undici');
  return loaded;
}
