/**
 * R2 buckets: each object's metadata is a row of a durable sql.js index, its bytes a file under
 * the bucket's `blobs/` folder named by a random version id — never by the key, so no key (`../x`,
 * `a/b`, 1024 bytes of anything) reaches a path. A put writes and fsyncs the bytes before the row
 * is committed; a crash in between leaves an unreferenced file that the next open sweeps away,
 * never a row without its bytes. Errors read as workerd's: `get: The requested range is not
 * satisfiable (10039)`. Multipart uploads live in r2Multipart.ts, on the same index and folder.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CREATE_NEW, mkdirPrivate, PRIVATE_FILE_MODE, readPrivate } from '../../core/privateFiles';
import { syncDirectory } from '../storage/snapshot';
import type { DurableDatabase } from '../storage/durableDatabase';
import type { BindingStore } from './bindingStore';
import { createUpload, failure, MULTIPART_SCHEMA, type MultipartHost, R2MultipartUpload, sweepParts } from './r2Multipart';
import { R2Object, R2ObjectBody, type StoredObject } from './r2Object';
import { toBytes } from './values';

const MAX_KEY_BYTES = 1024;
const MAX_LIST = 1000;
const HTTP_FIELDS = ['contentType', 'contentLanguage', 'contentDisposition', 'contentEncoding', 'cacheControl'] as const;
const HTTP_HEADERS: Record<(typeof HTTP_FIELDS)[number], string> = {
  contentType: 'content-type',
  contentLanguage: 'content-language',
  contentDisposition: 'content-disposition',
  contentEncoding: 'content-encoding',
  cacheControl: 'cache-control',
};
const HASHES = { md5: 'md5', sha1: 'sha1', sha256: 'sha256', sha384: 'sha384', sha512: 'sha512' } as const;
const HASH_NAMES: Record<keyof typeof HASHES, string> = { md5: 'MD5', sha1: 'SHA-1', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };
const HASH_BYTES: Record<keyof typeof HASHES, number> = { md5: 16, sha1: 20, sha256: 32, sha384: 48, sha512: 64 };
const INCLUDES = ['httpMetadata', 'customMetadata'];

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS objects (key TEXT PRIMARY KEY, version TEXT NOT NULL, size INTEGER NOT NULL, etag TEXT NOT NULL, uploaded INTEGER NOT NULL, http TEXT NOT NULL, custom TEXT NOT NULL, checksums TEXT NOT NULL) WITHOUT ROWID',
  ...MULTIPART_SCHEMA,
];

export interface R2Conditional {
  etagMatches?: string;
  etagDoesNotMatch?: string;
  uploadedBefore?: Date;
  uploadedAfter?: Date;
  secondsGranularity?: boolean;
}

type Range = { offset?: number; length?: number } | { suffix: number };

/** The one checksum a put may name (workerd refuses two), its length checked, as lower-case hex. */
function expectedChecksum(options: Partial<Record<keyof typeof HASHES, unknown>>): { name: keyof typeof HASHES; hex: string } | undefined {
  const given = (Object.keys(HASHES) as (keyof typeof HASHES)[]).filter((name) => options[name] !== undefined);
  if (given.length === 0) return undefined;
  if (given.length > 1) throw new TypeError('You cannot specify multiple hashing algorithms.');
  const name = given[0]!;
  const value = options[name];
  const label = HASH_NAMES[name];
  if (typeof value === 'string') {
    if (value.length !== HASH_BYTES[name] * 2) throw new TypeError(`${label} is ${HASH_BYTES[name] * 2} hex characters, not ${value.length}`);
    if (!/^[0-9a-f]*$/i.test(value)) throw new TypeError(`Provided ${label} wasn't a valid hex string`);
    return { name, hex: value.toLowerCase() };
  }
  const bytes =
    value instanceof ArrayBuffer
      ? new Uint8Array(value)
      : ArrayBuffer.isView(value)
        ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
        : undefined;
  if (!bytes) throw new TypeError(`${label} must be a hex string or an ArrayBuffer`);
  if (bytes.byteLength !== HASH_BYTES[name]) throw new TypeError(`${label} is ${HASH_BYTES[name]} bytes, not ${bytes.byteLength}`);
  return { name, hex: Buffer.from(bytes).toString('hex') };
}

function checkKey(method: string, key: string): void {
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw failure(method, 'The specified object name is not valid.', 10020);
}

/** `onlyIf` as an object or as request headers (If-Match, If-None-Match, If-(Un)Modified-Since). */
function conditionOf(onlyIf: unknown): R2Conditional | undefined {
  if (onlyIf === undefined || onlyIf === null) return undefined;
  if (onlyIf instanceof Headers) {
    const date = (name: string) => (onlyIf.has(name) ? new Date(onlyIf.get(name)!) : undefined);
    return {
      etagMatches: onlyIf.get('if-match') ?? undefined,
      etagDoesNotMatch: onlyIf.get('if-none-match') ?? undefined,
      uploadedBefore: date('if-unmodified-since'),
      uploadedAfter: date('if-modified-since'),
      secondsGranularity: true,
    };
  }
  return onlyIf as R2Conditional;
}

/** Whether a list of etags (`"a", b`, `*`) names `etag`; quotes and W/ are ignored, as R2 does. */
function etagListHas(list: string, etag: string): boolean {
  return list.split(',').some((item) => {
    const bare = item
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1');
    return bare === '*' || bare === etag;
  });
}

/** RFC 9110's order: a passing If-Match overrides If-Unmodified-Since, If-None-Match If-Modified-Since. */
export function conditionHolds(condition: R2Conditional, object: StoredObject | undefined): boolean {
  if (!object) return condition.etagMatches === undefined;
  const truncate = (ms: number) => (condition.secondsGranularity ? Math.floor(ms / 1000) * 1000 : ms);
  const uploaded = truncate(object.uploaded);
  const ifMatch = condition.etagMatches === undefined ? undefined : etagListHas(condition.etagMatches, object.etag);
  if (ifMatch === false) return false;
  const ifNoneMatch = condition.etagDoesNotMatch === undefined ? undefined : !etagListHas(condition.etagDoesNotMatch, object.etag);
  if (ifNoneMatch === false) return false;
  if (ifMatch !== true && condition.uploadedBefore !== undefined && uploaded > truncate(condition.uploadedBefore.getTime())) return false;
  if (ifNoneMatch !== true && condition.uploadedAfter !== undefined && uploaded <= truncate(condition.uploadedAfter.getTime())) return false;
  return true;
}

function httpMetadataFrom(value: unknown): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (value instanceof Headers) {
    for (const field of HTTP_FIELDS) {
      const header = value.get(HTTP_HEADERS[field]);
      if (header !== null) out[field] = header;
    }
    if (value.has('expires')) out['cacheExpiry'] = new Date(value.get('expires')!).getTime();
    return out;
  }
  const given = (value ?? {}) as Record<string, unknown>;
  for (const field of HTTP_FIELDS) if (typeof given[field] === 'string') out[field] = given[field];
  if (given['cacheExpiry'] instanceof Date) out['cacheExpiry'] = given['cacheExpiry'].getTime();
  return out;
}

function rowToObject(row: unknown[]): StoredObject {
  const [key, version, size, etag, uploaded, http, custom, checksums] = row as [string, string, number, string, number, string, string, string];
  return { key, version, size, etag, uploaded, http: JSON.parse(http), custom: JSON.parse(custom), checksums: JSON.parse(checksums) };
}

const COLUMNS = 'key, version, size, etag, uploaded, http, custom, checksums';

export class R2Bucket {
  private swept = false;

  constructor(
    private readonly store: BindingStore,
    private readonly now: () => number,
  ) {}

  static schema = SCHEMA;

  private get blobs(): string {
    return path.join(this.store.dir, 'blobs');
  }

  private blobFile(version: string): string {
    return path.join(this.blobs, `${version}.bin`);
  }

  /** Removes bytes no row names: a put that crashed before its commit, a delete after its commit. */
  private async sweep(): Promise<void> {
    if (this.swept) return;
    this.swept = true;
    await sweepParts(this.store);
    const versions = new Set(await this.store.read((db) => db.exec('SELECT version FROM objects').rows.map((r) => String(r[0]))));
    if (!fs.existsSync(this.blobs)) return;
    for (const file of fs.readdirSync(this.blobs)) {
      if (!versions.has(file.replace(/\.bin$/, ''))) fs.rmSync(path.join(this.blobs, file), { force: true });
    }
  }

  private async stored(key: string): Promise<StoredObject | undefined> {
    await this.sweep();
    const row = await this.store.read((db) => db.exec(`SELECT ${COLUMNS} FROM objects WHERE key = ?`, [key]).rows[0]);
    return row ? rowToObject(row) : undefined;
  }

  async head(key: string): Promise<R2Object | null> {
    key = String(key);
    checkKey('head', key);
    const object = await this.stored(key);
    return object ? new R2Object(object) : null;
  }

  async get(key: string, options: { onlyIf?: unknown; range?: Range | Headers } = {}): Promise<R2Object | R2ObjectBody | null> {
    key = String(key);
    checkKey('get', key);
    const object = await this.stored(key);
    if (!object) return null;
    const condition = conditionOf(options.onlyIf);
    if (condition && !conditionHolds(condition, object)) return new R2Object(object);
    const range = this.resolveRange(options.range, object.size);
    const bytes = readPrivate(this.blobFile(object.version));
    return new R2ObjectBody(object, bytes.subarray(range.offset, range.offset + range.length), range);
  }

  private resolveRange(given: Range | Headers | undefined, size: number): { offset: number; length: number } {
    const whole = { offset: 0, length: size };
    if (given === undefined) return whole;
    let range: Range = given as Range;
    if (given instanceof Headers) {
      // As workerd: a Range header it cannot serve (malformed, several ranges, past the end) is ignored.
      const header = given.get('range');
      const match = header === null ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
      if (!match || (match[1] === '' && match[2] === '')) return whole;
      if (match[1] === '') {
        if (Number(match[2]) === 0) return whole;
        range = { suffix: Number(match[2]) };
      } else range = { offset: Number(match[1]), ...(match[2] === '' ? {} : { length: Number(match[2]) - Number(match[1]) + 1 }) };
      if ('offset' in range && range.offset !== undefined && (range.offset >= size || (range.length !== undefined && range.length <= 0))) return whole;
    }
    if ('suffix' in range && range.suffix !== undefined) {
      if ((range as { offset?: number }).offset !== undefined) throw new TypeError('Suffix is incompatible with offset.');
      if ((range as { length?: number }).length !== undefined) throw new TypeError('Suffix is incompatible with length.');
      if (range.suffix < 0) throw new RangeError(`Invalid suffix. Suffix (${range.suffix}) must be greater than or equal to 0.`);
      if (!(range.suffix > 0)) throw failure('get', 'The requested range is not satisfiable', 10039);
      const suffix = Math.min(range.suffix, size);
      return { offset: size - suffix, length: suffix };
    }
    const { offset = 0, length } = range as { offset?: number; length?: number };
    if (offset < 0) throw new RangeError(`Invalid range. Starting offset (${offset}) must be greater than or equal to 0.`);
    if (length !== undefined && length < 0) throw new RangeError(`Invalid range. Length (${length}) must be greater than or equal to 0.`);
    if ((length !== undefined && length === 0) || (offset > 0 && offset >= size)) throw failure('get', 'The requested range is not satisfiable', 10039);
    return { offset, length: Math.min(length ?? size - offset, size - offset) };
  }

  async put(
    key: string,
    value: unknown,
    options: {
      onlyIf?: unknown;
      httpMetadata?: unknown;
      customMetadata?: Record<string, string>;
      md5?: string | ArrayBuffer;
      sha1?: string | ArrayBuffer;
      sha256?: string | ArrayBuffer;
      sha384?: string | ArrayBuffer;
      sha512?: string | ArrayBuffer;
    } = {},
  ): Promise<R2Object | null> {
    key = String(key);
    checkKey('put', key);
    const expected = expectedChecksum(options);
    const bytes = value === null ? new Uint8Array(0) : await toBytes(value);
    if (bytes === undefined)
      throw new TypeError(
        "Failed to execute 'put' on 'R2Bucket': parameter 2 is not of type 'ReadableStream or ArrayBuffer or ArrayBufferView or string or Blob'.",
      );
    const checksums: Record<string, string> = { md5: createHash('md5').update(bytes).digest('hex') };
    if (expected) {
      const actual = createHash(HASHES[expected.name]).update(bytes).digest('hex');
      if (expected.hex !== actual) {
        const name = HASH_NAMES[expected.name];
        throw failure(
          'put',
          `The ${name} checksum you specified did not match what we received.\nYou provided a ${name} checksum with value: ${expected.hex}\nActual ${name} was: ${actual}`,
          10037,
        );
      }
      checksums[expected.name] = actual;
    }
    const condition = conditionOf(options.onlyIf);
    if (condition && !conditionHolds(condition, await this.stored(key))) return null;
    await this.sweep();
    const object: StoredObject = {
      key,
      version: randomBytes(16).toString('hex'),
      size: bytes.byteLength,
      etag: checksums['md5']!,
      uploaded: this.now(),
      http: httpMetadataFrom(options.httpMetadata),
      custom: { ...(options.customMetadata ?? {}) },
      checksums,
    };
    await this.writeBlob(object.version, bytes);
    const replaced = await this.commitObject(object);
    if (replaced !== undefined) fs.rmSync(this.blobFile(replaced), { force: true });
    return new R2Object(object, null);
  }

  /** In one transaction the object's row replaces the key's (and `also` runs); the replaced version. */
  private commitObject(object: StoredObject, also?: (db: DurableDatabase) => void): Promise<string | undefined> {
    return this.store.write((db) => {
      also?.(db);
      const old = db.exec('SELECT version FROM objects WHERE key = ?', [object.key]).rows[0]?.[0];
      db.exec(`INSERT OR REPLACE INTO objects (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
        object.key,
        object.version,
        object.size,
        object.etag,
        object.uploaded,
        JSON.stringify(object.http),
        JSON.stringify(object.custom),
        JSON.stringify(object.checksums),
      ]);
      return old === undefined ? undefined : String(old);
    });
  }

  private writeBlob(version: string, bytes: Uint8Array): Promise<void> {
    return writeSynced(this.blobFile(version), [bytes]);
  }

  /** What multipart uploads borrow from the bucket (its index, files and commit). */
  private get multipartHost(): MultipartHost {
    return {
      store: this.store,
      now: this.now,
      ready: async (method, key) => {
        checkKey(method, key);
        await this.sweep();
      },
      writeBlobFromFiles: (version, files) => writeSynced(this.blobFile(version), files),
      writeFile: (file, bytes) => writeSynced(file, [bytes]),
      commitObject: (object, also) => this.commitObject(object, also),
      dropBlob: (version) => fs.rmSync(this.blobFile(version), { force: true }),
      toBytes: (value) => toBytes(value),
    };
  }

  async delete(keys: string | readonly string[]): Promise<void> {
    const list = (Array.isArray(keys) ? keys : [keys]).map(String);
    for (const key of list) checkKey('delete', key);
    await this.sweep();
    const versions = await this.store.write((db) =>
      list.flatMap((key) => {
        const version = db.exec('SELECT version FROM objects WHERE key = ?', [key]).rows[0]?.[0];
        db.exec('DELETE FROM objects WHERE key = ?', [key]);
        return version === undefined ? [] : [String(version)];
      }),
    );
    for (const version of versions) fs.rmSync(this.blobFile(version), { force: true });
  }

  async list(
    options: { limit?: number; prefix?: string; cursor?: string; delimiter?: string; startAfter?: string; include?: readonly string[] } = {},
  ): Promise<unknown> {
    // As workerd: a negative limit means none given; 0 and over 1000 are refused.
    const limit = options.limit === undefined || options.limit < 0 ? MAX_LIST : options.limit;
    if (!(limit >= 1 && limit <= MAX_LIST)) throw failure('list', `MaxKeys params must be positive integer <= ${MAX_LIST}.`, 10022);
    for (const item of options.include ?? []) if (!INCLUDES.includes(item)) throw new RangeError(`Unsupported include value ${String(item)}`);
    const prefix = options.prefix ?? '';
    const include = { http: options.include?.includes('httpMetadata') ?? false, custom: options.include?.includes('customMetadata') ?? false };
    const start = options.cursor ? Buffer.from(options.cursor, 'base64url').toString('utf8') : options.startAfter;
    // The empty key is a key: with no cursor nor startAfter the scan includes it.
    let after = start ?? '';
    let inclusive = start === undefined;
    await this.sweep();
    const objects: R2Object[] = [];
    const prefixes: string[] = [];
    let truncated = false;
    let last = after;
    scan: for (;;) {
      const rows = await this.store.read(
        (db) =>
          db.exec(`SELECT ${COLUMNS} FROM objects WHERE substr(key, 1, length(?)) = ? AND key ${inclusive ? '>=' : '>'} ? ORDER BY key LIMIT 256`, [
            prefix,
            prefix,
            after,
          ]).rows,
      );
      inclusive = false;
      if (rows.length === 0) break;
      for (const row of rows) {
        const object = rowToObject(row);
        after = object.key;
        if (objects.length + prefixes.length === limit) {
          truncated = true;
          break scan;
        }
        const cut = options.delimiter ? object.key.indexOf(options.delimiter, prefix.length) : -1;
        if (cut >= 0) {
          const delimited = object.key.slice(0, cut + options.delimiter!.length);
          prefixes.push(delimited);
          // Everything under this prefix is summarised by it: continue after the last such key.
          after = last = delimited + '\u{10FFFF}';
          continue scan;
        }
        objects.push(new R2Object(object, null, include));
        last = object.key;
      }
    }
    return {
      objects,
      delimitedPrefixes: prefixes,
      truncated,
      ...(truncated ? { cursor: Buffer.from(last, 'utf8').toString('base64url') } : {}),
    };
  }

  async createMultipartUpload(key: string, options: { httpMetadata?: unknown; customMetadata?: Record<string, string> } = {}): Promise<R2MultipartUpload> {
    return createUpload(this.multipartHost, String(key), { http: httpMetadataFrom(options.httpMetadata), custom: { ...(options.customMetadata ?? {}) } });
  }

  /** The handle of an upload by its id, without I/O: an unknown id fails at its first use. */
  resumeMultipartUpload(key: string, uploadId: string): R2MultipartUpload {
    return new R2MultipartUpload(this.multipartHost, String(key), String(uploadId));
  }
}

/**
 * Writes `parts` (bytes, or the paths of files whose bytes to copy in order) as one new private
 * file, fsynced with its folder before this resolves.
 */
async function writeSynced(file: string, parts: readonly (Uint8Array | string)[]): Promise<void> {
  const dir = path.dirname(file);
  mkdirPrivate(dir);
  const handle = await fs.promises.open(file, CREATE_NEW, PRIVATE_FILE_MODE);
  try {
    for (const part of parts) {
      if (typeof part === 'string') {
        for await (const chunk of fs.createReadStream(part)) await writeAll(handle, chunk as Buffer);
      } else await writeAll(handle, part);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  await syncDirectory(dir);
}

async function writeAll(handle: fs.promises.FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.byteLength;) offset += (await handle.write(bytes, offset, bytes.byteLength - offset)).bytesWritten;
}
