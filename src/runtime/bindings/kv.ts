/**
 * Workers KV on sql.js: one durable database per namespace id. Reproduces the platform's limits
 * and error texts (`KV PUT failed: 400 Invalid expiration_ttl of 30. Expiration TTL must be at
 * least 60.`), expirations by the injected clock, metadata, sorted cursor listing and bulk get.
 * KV is eventually consistent on Cloudflare; locally, as in wrangler dev, a write is seen at once.
 */
import type { SqlValue } from '../storage/journal';
import type { BindingStore } from './bindingStore';
import { streamOf, toArrayBuffer, toBytes } from './values';

const MIN_EXPIRATION_TTL = 60;
const MIN_CACHE_TTL = 30;
const MAX_KEY_BYTES = 512;
const MAX_VALUE_BYTES = 25 * 1024 * 1024;
const MAX_METADATA_BYTES = 1024;
const MAX_LIST_KEYS = 1000;
const MAX_BULK_KEYS = 100;

const SCHEMA = ['CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value BLOB NOT NULL, expiration INTEGER, metadata TEXT) WITHOUT ROWID'];

type ValueType = 'text' | 'json' | 'arrayBuffer' | 'stream';
const TYPES: readonly string[] = ['text', 'json', 'arrayBuffer', 'stream'];

interface GetOptions {
  readonly type?: ValueType;
  readonly cacheTtl?: number;
}

export interface KvPutOptions {
  readonly expiration?: number | string;
  readonly expirationTtl?: number | string;
  readonly metadata?: unknown;
}

export interface KvListOptions {
  readonly prefix?: string | null;
  readonly limit?: number;
  readonly cursor?: string | null;
}

interface Row {
  readonly value: Uint8Array;
  readonly metadata: unknown;
  readonly expiration: number | null;
}

function failure(method: string, status: number, text: string): Error {
  return new Error(`KV ${method} failed: ${status} ${text}`);
}

function checkKey(method: string, key: string): void {
  // workerd refuses an empty key itself, before any request (a TypeError, not a KV failure).
  if (key === '') throw new TypeError('Key name cannot be empty.');
  if (key === '.' || key === '..') throw failure(method, 400, `Illegal key name "${key}". Please use a different name.`);
  checkKeyLength(method, key);
}

function checkKeyLength(method: string, key: string): void {
  const length = Buffer.byteLength(key);
  if (length > MAX_KEY_BYTES) throw failure(method, 414, `UTF-8 encoded length of ${length} exceeds key length limit of ${MAX_KEY_BYTES}.`);
}

function getOptions(typeOrOptions: unknown): GetOptions {
  const options: GetOptions = typeof typeOrOptions === 'string' ? { type: typeOrOptions as ValueType } : ((typeOrOptions ?? {}) as GetOptions);
  if (options.type !== undefined && !TYPES.includes(options.type)) {
    throw new TypeError('Unknown response type. Possible types are "text", "arrayBuffer", "json", and "stream".');
  }
  const ttl = options.cacheTtl;
  // Accepted and validated, then ignored: there is one edge location, this machine.
  if (ttl !== undefined && (Number.isNaN(ttl) || ttl < MIN_CACHE_TTL)) {
    throw failure('GET', 400, `Invalid cache_ttl of ${ttl}. Cache TTL must be at least ${MIN_CACHE_TTL}.`);
  }
  return options;
}

function decode(bytes: Uint8Array, type: ValueType = 'text'): unknown {
  switch (type) {
    case 'json':
      return JSON.parse(new TextDecoder().decode(bytes));
    case 'arrayBuffer':
      return toArrayBuffer(bytes);
    case 'stream':
      return streamOf(bytes);
    default:
      return new TextDecoder().decode(bytes);
  }
}

/** Cursors are opaque to the worker: the last key returned, base64url. */
const encodeCursor = (key: string) => Buffer.from(key, 'utf8').toString('base64url');
const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');

export class KvNamespace {
  constructor(
    private readonly store: BindingStore,
    private readonly now: () => number,
  ) {}

  static schema = SCHEMA;

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private async row(key: string): Promise<Row | null> {
    return this.store.read((db) => {
      const found = db.exec('SELECT value, expiration, metadata FROM kv WHERE key = ? AND (expiration IS NULL OR expiration > ?)', [key, this.seconds()])
        .rows[0];
      if (!found) return null;
      const [value, expiration, metadata] = found as [Uint8Array, number | null, string | null];
      return { value, expiration, metadata: metadata === null ? null : JSON.parse(metadata) };
    });
  }

  async get(key: string | readonly string[], typeOrOptions?: unknown): Promise<unknown> {
    const options = getOptions(typeOrOptions);
    if (Array.isArray(key)) return this.getBulk(key, options, false);
    checkKey('GET', String(key));
    const row = await this.row(String(key));
    return row === null ? null : decode(row.value, options.type);
  }

  async getWithMetadata(key: string | readonly string[], typeOrOptions?: unknown): Promise<unknown> {
    const options = getOptions(typeOrOptions);
    if (Array.isArray(key)) return this.getBulk(key, options, true);
    checkKey('GET', String(key));
    const row = await this.row(String(key));
    if (row === null) return { value: null, metadata: null, cacheStatus: null };
    return { value: decode(row.value, options.type), metadata: row.metadata, cacheStatus: null };
  }

  /** `get([keys])`: a Map of every key asked for, text or JSON only, at most 100 keys. */
  private async getBulk(keys: readonly string[], options: GetOptions, withMetadata: boolean): Promise<Map<string, unknown>> {
    const type = options.type ?? 'text';
    if (type !== 'text' && type !== 'json') throw failure('GET_BULK', 400, `"${type}" is not a valid type. Use "json" or "text"`);
    if (keys.length > MAX_BULK_KEYS) throw failure('GET_BULK', 400, `You can request a maximum of ${MAX_BULK_KEYS} keys`);
    if (keys.length === 0) throw failure('GET_BULK', 400, 'You must request a minimum of 1 key');
    const out = new Map<string, unknown>();
    for (const key of keys) {
      checkKey('GET', key);
      const row = await this.row(key);
      const value = row === null ? null : decode(row.value, type);
      out.set(key, withMetadata ? (row === null ? null : { value, metadata: row.metadata }) : value);
    }
    return out;
  }

  async put(key: string, value: unknown, options: KvPutOptions = {}): Promise<void> {
    key = String(key);
    checkKey('PUT', key);
    // Anything else is stored as its string form, as workerd's put() coerces it (42 → "42").
    const bytes = (await toBytes(value)) ?? new TextEncoder().encode(String(value));
    if (bytes.byteLength > MAX_VALUE_BYTES) throw failure('PUT', 413, `Value length of ${bytes.byteLength} exceeds limit of ${MAX_VALUE_BYTES}.`);
    const now = this.seconds();
    let expiration: number | null = null;
    if (options.expirationTtl !== undefined && options.expirationTtl !== null) {
      const raw = String(options.expirationTtl);
      const ttl = parseInt(raw, 10);
      if (Number.isNaN(ttl) || ttl <= 0) throw failure('PUT', 400, `Invalid expiration_ttl of ${raw}. Please specify integer greater than 0.`);
      if (ttl < MIN_EXPIRATION_TTL) throw failure('PUT', 400, `Invalid expiration_ttl of ${raw}. Expiration TTL must be at least ${MIN_EXPIRATION_TTL}.`);
      expiration = now + ttl;
    } else if (options.expiration !== undefined && options.expiration !== null) {
      const raw = String(options.expiration);
      expiration = parseInt(raw, 10);
      if (Number.isNaN(expiration) || expiration <= now) {
        throw failure('PUT', 400, `Invalid expiration of ${raw}. Please specify integer greater than the current number of seconds since the UNIX epoch.`);
      }
      if (expiration < now + MIN_EXPIRATION_TTL) {
        throw failure('PUT', 400, `Invalid expiration of ${raw}. Expiration times must be at least ${MIN_EXPIRATION_TTL} seconds in the future.`);
      }
    }
    let metadata: string | null = null;
    if (options.metadata !== undefined) {
      metadata = JSON.stringify(options.metadata) ?? null;
      const length = metadata === null ? 0 : Buffer.byteLength(metadata);
      if (length > MAX_METADATA_BYTES) throw failure('PUT', 413, `Metadata length of ${length} exceeds limit of ${MAX_METADATA_BYTES}.`);
    }
    const params: SqlValue[] = [key, bytes, expiration, metadata];
    await this.store.write((db) => db.exec('INSERT OR REPLACE INTO kv (key, value, expiration, metadata) VALUES (?, ?, ?, ?)', params));
  }

  async delete(key: string): Promise<void> {
    key = String(key);
    checkKey('DELETE', key);
    await this.store.write((db) => db.exec('DELETE FROM kv WHERE key = ?', [key]));
  }

  async list(options: KvListOptions = {}): Promise<unknown> {
    // A limit of 0 means no limit given, as on the platform.
    const limit = options.limit || MAX_LIST_KEYS;
    if (Number.isNaN(limit) || limit < 1) throw failure('GET', 400, `Invalid key_count_limit of ${limit}. Please specify an integer greater than 0.`);
    if (limit > MAX_LIST_KEYS) throw failure('GET', 400, `Invalid key_count_limit of ${limit}. Please specify an integer less than ${MAX_LIST_KEYS}.`);
    const prefix = options.prefix ?? '';
    checkKeyLength('GET', prefix);
    const after = options.cursor ? decodeCursor(options.cursor) : '';
    const rows = await this.store.read(
      (db) =>
        db.exec(
          // substr compares bytes of the prefix exactly; LIKE would treat % and _ as wildcards.
          'SELECT key, expiration, metadata FROM kv WHERE substr(key, 1, length(?)) = ? AND key > ? AND (expiration IS NULL OR expiration > ?) ORDER BY key LIMIT ?',
          [prefix, prefix, after, this.seconds(), limit + 1],
        ).rows as [string, number | null, string | null][],
    );
    const more = rows.length > limit;
    const keys = rows.slice(0, limit).map(([name, expiration, metadata]) => ({
      name,
      ...(expiration !== null ? { expiration } : {}),
      ...(metadata !== null ? { metadata: JSON.parse(metadata) as unknown } : {}),
    }));
    return more
      ? { keys, list_complete: false, cursor: encodeCursor(keys[keys.length - 1]!.name), cacheStatus: null }
      : { keys, list_complete: true, cacheStatus: null };
  }
}
