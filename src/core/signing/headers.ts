import type { HeaderMap } from './types';

/** Lower-cases header names; repeated headers (arrays) are joined with ", " as fetch's Headers does. */
export function normalizeHeaders(headers: Iterable<[string, string]> | Record<string, string | readonly string[] | undefined>): HeaderMap {
  const out: Record<string, string> = {};
  const entries =
    Symbol.iterator in headers ? (headers as Iterable<[string, string]>) : Object.entries(headers as Record<string, string | readonly string[] | undefined>);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    const text = typeof value === 'string' ? value : value.join(', ');
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${text}` : text;
  }
  return out;
}

/** The first of `names` present in `headers`, with its value. */
export function firstHeader(headers: HeaderMap, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) return { name, value };
  }
  return undefined;
}
