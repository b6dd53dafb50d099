/**
 * Readers of JSON that crossed a process seam: each checks that a value has the shape a contract
 * type declares and gives it back typed, or throws a ShapeError that says where and what was
 * wrong (`instances[2].awake: expected a boolean, got "yes"`). The contract declares a reader
 * beside each type a client parses on arrival (docs/admin-api.md, "Answers are parsed on
 * arrival"); `shape<T>` makes the compiler ask for a reader of every field of `T`, so a field
 * added to a type and not to its reader does not compile.
 */

/** Reads `value`, found at `at` (a path such as `deliveries[3].source`, '' for the whole). */
export type Reader<T> = (value: unknown, at: string) => T;

/** A field that may be absent: its reader, applied only when the field is there. */
export interface Optional<T> {
  readonly optional: Reader<T>;
}

/** A value of the wrong shape: `<where>: expected <what>, got <what came>`. */
export class ShapeError extends Error {
  constructor(
    readonly at: string,
    readonly expected: string,
    got: unknown,
  ) {
    super(`${at || 'the value'}: expected ${expected}, got ${described(got)}`);
  }
}

function described(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

function checked<T>(expected: string, test: (value: unknown) => boolean): Reader<T> {
  return (value, at) => {
    if (!test(value)) throw new ShapeError(at, expected, value);
    return value as T;
  };
}

export const text: Reader<string> = checked('a string', (value) => typeof value === 'string');
export const number: Reader<number> = checked('a number', (value) => typeof value === 'number' && Number.isFinite(value));
/** A whole number, 0 or more (counts, sizes, ids of processes). */
export const count: Reader<number> = checked('a whole number', (value) => Number.isSafeInteger(value) && (value as number) >= 0);
export const bool: Reader<boolean> = checked('true or false', (value) => typeof value === 'boolean');
/** Any JSON value, kept as it came (an agent's state, a key's metadata). */
export const anything: Reader<unknown> = (value) => value;

/** One of the values listed, compared with `===`. */
export function oneOf<const L extends readonly (string | number | boolean)[]>(...values: L): Reader<L[number]> {
  return checked(values.map((value) => JSON.stringify(value)).join(' or '), (value) => values.includes(value as L[number]));
}

export function nullable<T>(reader: Reader<T>): Reader<T | null> {
  return (value, at) => (value === null ? null : reader(value, at));
}

export function optional<T>(reader: Reader<T>): Optional<T> {
  return { optional: reader };
}

export function listOf<T>(reader: Reader<T>): Reader<T[]> {
  return (value, at) => {
    if (!Array.isArray(value)) throw new ShapeError(at, 'an array', value);
    return value.map((item, i) => reader(item, `${at}[${i}]`));
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose every value `reader` reads (headers, metadata). */
export function dictOf<T>(reader: Reader<T>): Reader<Record<string, T>> {
  return (value, at) => {
    if (!isObject(value)) throw new ShapeError(at, 'an object', value);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, reader(item, `${at}[${JSON.stringify(key)}]`)]));
  };
}

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** A reader for each field of `T`: `optional(…)` for its optional ones. */
export type Fields<T> = { readonly [K in keyof T]-?: K extends OptionalKeys<T> ? Optional<Exclude<T[K], undefined>> : Reader<T[K]> };

/**
 * An object with the fields of `T`, each read by its reader; fields `T` does not declare are left
 * behind, an optional one that is absent stays absent.
 */
export function shape<T extends object>(fields: Fields<T>): Reader<T> {
  const entries = Object.entries(fields) as [string, Reader<unknown> | Optional<unknown>][];
  return (value, at) => {
    if (!isObject(value)) throw new ShapeError(at, 'an object', value);
    const read: Record<string, unknown> = {};
    for (const [key, field] of entries) {
      const given = Object.hasOwn(value, key) ? value[key] : undefined;
      const where = at ? `${at}.${key}` : key;
      if (typeof field === 'function') read[key] = field(given, where);
      else if (given !== undefined) read[key] = field.optional(given, where);
    }
    return read as T;
  };
}

/**
 * One of the members of the union `T`, told apart by the field `key`: a reader for every value
 * the field takes (a value left out does not compile), each reading its member.
 */
export function byTag<T extends object, K extends keyof T & string>(key: K, readers: { readonly [V in T[K] & (string | number)]: Reader<T> }): Reader<T> {
  const tags = Object.keys(readers);
  return (value, at) => {
    if (!isObject(value)) throw new ShapeError(at, 'an object', value);
    const tag = value[key];
    const reader = typeof tag === 'string' || typeof tag === 'number' ? (readers as Record<string | number, Reader<T> | undefined>)[tag] : undefined;
    if (!reader || !Object.hasOwn(readers, tag as string)) throw new ShapeError(at ? `${at}.${key}` : key, tags.map((t) => JSON.stringify(t)).join(' or '), tag);
    return reader(value, at);
  };
}
