import type { HeaderMap, Locator } from './types';

/** A value at a dotted path (`data.object.customer`, `authorizations.0.team_id`) of parsed JSON or form fields. */
export function atPath(payload: unknown, path: string): unknown {
  let node = payload;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  // Form fields parse to arrays of values; a path names the first.
  return Array.isArray(node) && node.length > 0 && typeof node[0] === 'string' ? node[0] : node;
}

/** The first non-empty string or number found by `locators`, as a string. */
export function locate(locators: readonly Locator[], headers: HeaderMap, payload: unknown): string | undefined {
  for (const locator of locators) {
    let value: unknown;
    if (locator.from === 'header') value = headers[locator.name];
    else if (!locator.when || atPath(payload, locator.when.path) === locator.when.equals) value = atPath(payload, locator.path);
    if (typeof value === 'number' || typeof value === 'bigint') return String(value);
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
