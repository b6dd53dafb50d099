/**
 * The key-value half of `ctx.storage` (`get`, `put`, `delete`, `list`, `deleteAll`) in the same
 * SQLite database as the SQL half, as on Cloudflare (table `_cf_KV`). Values are stored as V8
 * structured-clone bytes, so Maps, Dates and typed arrays round-trip like on a Durable Object.
 */
import { deserialize, serialize } from 'node:v8';
import type { DurableDatabase } from '../storage/durableDatabase';

export interface ListOptions {
  readonly start?: string;
  readonly startAfter?: string;
  readonly end?: string;
  readonly prefix?: string;
  readonly reverse?: boolean;
  readonly limit?: number;
}

export class KvStorage {
  constructor(private readonly db: DurableDatabase) {
    db.exec('CREATE TABLE IF NOT EXISTS _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID');
  }

  get(key: string): unknown;
  get(keys: string[]): Map<string, unknown>;
  get(keyOrKeys: string | string[]): unknown {
    if (Array.isArray(keyOrKeys)) {
      const out = new Map<string, unknown>();
      for (const key of keyOrKeys) {
        const value = this.get(key);
        if (value !== undefined) out.set(key, value);
      }
      return out;
    }
    const row = this.db.exec('SELECT value FROM _cf_KV WHERE key = ?', [keyOrKeys]).rows[0];
    return row ? deserialize(row[0] as Uint8Array) : undefined;
  }

  put(key: string, value: unknown): void;
  put(entries: Record<string, unknown>): void;
  put(keyOrEntries: string | Record<string, unknown>, value?: unknown): void {
    if (typeof keyOrEntries !== 'string') {
      for (const [key, v] of Object.entries(keyOrEntries)) this.put(key, v);
      return;
    }
    if (value === undefined) throw new TypeError('put() needs a value; use delete() to remove a key');
    this.db.exec('INSERT OR REPLACE INTO _cf_KV (key, value) VALUES (?, ?)', [keyOrEntries, new Uint8Array(serialize(value))]);
  }

  delete(key: string): boolean;
  delete(keys: string[]): number;
  delete(keyOrKeys: string | string[]): boolean | number {
    if (Array.isArray(keyOrKeys)) return keyOrKeys.filter((key) => this.delete(key)).length;
    return this.db.exec('DELETE FROM _cf_KV WHERE key = ?', [keyOrKeys]).rowsWritten > 0;
  }

  deleteAll(): void {
    this.db.exec('DELETE FROM _cf_KV');
  }

  list(options: ListOptions = {}): Map<string, unknown> {
    const where: string[] = [];
    const params: string[] = [];
    if (options.prefix !== undefined) {
      where.push('substr(key, 1, length(?)) = ?');
      params.push(options.prefix, options.prefix);
    }
    const bounds: [string | undefined, string][] = [
      [options.start, 'key >= ?'],
      [options.startAfter, 'key > ?'],
      [options.end, 'key < ?'],
    ];
    for (const [value, clause] of bounds) {
      if (value === undefined) continue;
      where.push(clause);
      params.push(value);
    }
    const limit = options.limit !== undefined && options.limit > 0 ? ` LIMIT ${Math.floor(options.limit)}` : '';
    const sql = `SELECT key, value FROM _cf_KV${where.length ? ' WHERE ' + where.join(' AND ') : ''} ORDER BY key ${options.reverse ? 'DESC' : 'ASC'}${limit}`;
    return new Map(this.db.exec(sql, params).rows.map(([key, value]) => [key as string, deserialize(value as Uint8Array)]));
  }
}
