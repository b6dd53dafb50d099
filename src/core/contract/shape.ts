/**
 * Readers of JSON that crossed a process seam: each checks that a value has the shape a contract
 * type declares and gives it back typed, or throws a ShapeError that says where and what was
 * wrong (`instances[2].awake: expected true or false, got "yes"`). The contract declares a reader
 * beside each type a client parses on arrival (docs/admin-api.md, "Answers are parsed on
 * arrival"); `shape<T>` makes the compiler ask for a reader of every field of `T`, so a field
 * added to a type and not to its reader does not compile.
 */

/** Reads `value`: gives it back typed, or throws ShapeError. */
export type Reader<T> = (value: unknown) => T;

/** A field that may be absent: its reader, applied only when the field is there. */
export interface Optional<T> {
  readonly optional: Reader<T>;
}

/**
 * A value of the wrong shape: `<where>: expected <what>, got <what came>`. Where is filled in as
 * the error leaves each object and array it is in, so reading a value that is right builds no path.
 */
export class ShapeError extends Error {
  private path = '';
  private readonly what: string;

  constructor(
    readonly expected: string,
    got: unknown,
  ) {
    const what = `expected ${expected}, got ${described(got)}`;
    super(`the value: ${what}`);
    this.what = what;
  }

  /** Where in the value read: `instances[2].awake`, '' for the whole. */
  get at(): string {
    return this.path;
  }

  /** Notes that the error is within `step` (`.name` or `[2]`) of the value around it. */
  within(step: string): this {
    this.path = step + this.path;
    this.message = `${this.path.replace(/^\./, '')}: ${this.what}`;
    return this;
  }
}

/** `read()`, its ShapeError placed within `step` (`.name`, `[2]`). */
export function stepInto<T>(step: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof ShapeError ? error.within(step) : error;
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
  return (value) => {
    if (!test(value)) throw new ShapeError(expected, value);
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
  return (value) => (value === null ? null : reader(value));
}

export function optional<T>(reader: Reader<T>): Optional<T> {
  return { optional: reader };
}

export function listOf<T>(reader: Reader<T>): Reader<T[]> {
  return (value) => {
    if (!Array.isArray(value)) throw new ShapeError('an array', value);
    const read: T[] = new Array<T>(value.length);
    let i = 0;
    try {
      for (; i < value.length; i++) read[i] = reader(value[i]);
    } catch (error) {
      throw error instanceof ShapeError ? error.within(`[${i}]`) : error;
    }
    return read;
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose every value `reader` reads (headers, metadata). */
export function dictOf<T>(reader: Reader<T>): Reader<Record<string, T>> {
  return (value) => {
    if (!isObject(value)) throw new ShapeError('an object', value);
    const read: Record<string, T> = {};
    let key = '';
    try {
      for (key in value) {
        if (!Object.hasOwn(value, key)) continue;
        // A request's headers are the sender's to name: `__proto__` stays a key, never the prototype.
        if (key === '__proto__') Object.defineProperty(read, key, { value: reader(value[key]), enumerable: true, writable: true, configurable: true });
        else read[key] = reader(value[key]);
      }
    } catch (error) {
      throw error instanceof ShapeError ? error.within(`[${JSON.stringify(key)}]`) : error;
    }
    return read;
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
  return (value) => {
    if (!isObject(value)) throw new ShapeError('an object', value);
    const read: Record<string, unknown> = {};
    let key = '';
    try {
      for (const [name, field] of entries) {
        key = name;
        const given = Object.hasOwn(value, name) ? value[name] : undefined;
        if (typeof field === 'function') read[name] = field(given);
        else if (given !== undefined) read[name] = field.optional(given);
      }
    } catch (error) {
      throw error instanceof ShapeError ? error.within(`.${key}`) : error;
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
  return (value) => {
    if (!isObject(value)) throw new ShapeError('an object', value);
    const tag = value[key];
    const reader =
      (typeof tag === 'string' || typeof tag === 'number') && Object.hasOwn(readers, tag) ? (readers as Record<string | number, Reader<T>>)[tag] : undefined;
    if (!reader) throw new ShapeError(tags.map((t) => JSON.stringify(t)).join(' or '), tag).within(`.${key}`);
    return reader(value);
  };
}
