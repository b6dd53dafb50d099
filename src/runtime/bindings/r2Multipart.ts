/**
 * R2 multipart uploads: `createMultipartUpload` / `resumeMultipartUpload` hand out an
 * `R2MultipartUpload` whose parts are files under the bucket's `parts/` folder named by random ids
 * (never by the key) and rows of the bucket's index. A part is written and fsynced before its row
 * commits, so a crash loses no part already acknowledged; `complete` writes the object's bytes as
 * one new blob, then in one transaction makes the object visible, drops the part rows and marks the
 * upload completed, then removes the part files. Files no row names (a crash between two of those
 * steps, an abort) are swept when the bucket next opens. Limits, order of checks and error texts
 * are Miniflare's / R2's: parts of at least 5 MiB but the last, all of one size, the last no larger.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DurableDatabase } from '../storage/durableDatabase';
import type { BindingStore } from './bindingStore';
import { R2Object, type StoredObject } from './r2Object';

export const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PART_NUMBER = 10000;
const IN_PROGRESS = 0;
const COMPLETED = 1;
const ABORTED = 2;

export const MULTIPART_SCHEMA = [
  'CREATE TABLE IF NOT EXISTS uploads (id TEXT PRIMARY KEY, key TEXT NOT NULL, http TEXT NOT NULL, custom TEXT NOT NULL, state INTEGER NOT NULL) WITHOUT ROWID',
  'CREATE TABLE IF NOT EXISTS parts (upload TEXT NOT NULL, number INTEGER NOT NULL, file TEXT NOT NULL, size INTEGER NOT NULL, etag TEXT NOT NULL, md5 TEXT NOT NULL, PRIMARY KEY (upload, number)) WITHOUT ROWID',
];

export interface R2UploadedPart {
  readonly partNumber: number;
  readonly etag: string;
}

interface PartRow {
  readonly number: number;
  readonly file: string;
  readonly size: number;
  readonly etag: string;
  readonly md5: string;
}

/** What the bucket lends its multipart uploads: its index, clock, files and the object commit. */
export interface MultipartHost {
  readonly store: BindingStore;
  readonly now: () => number;
  /** Sweeps once, then checks the key's length (throws the method's invalid-name error). */
  ready(method: string, key: string): Promise<void>;
  /** Writes `files`' bytes, in order, as one fsynced blob named `version`. */
  writeBlobFromFiles(version: string, files: readonly string[]): Promise<void>;
  /** Writes `bytes` as one fsynced file at `file` (created new, private). */
  writeFile(file: string, bytes: Uint8Array): Promise<void>;
  /** In one transaction: the object's row replaces the key's, and `also` runs; returns the replaced version. */
  commitObject(object: StoredObject, also: (db: DurableDatabase) => void): Promise<string | undefined>;
  /** Removes the blob of a replaced version. */
  dropBlob(version: string): void;
  toBytes(value: unknown): Promise<Uint8Array | undefined>;
}

export function failure(method: string, text: string, code: number): Error {
  return new Error(`${method}: ${text} (${code})`);
}

const internal = (method: string) => failure(method, 'We encountered an internal error. Please try again.', 10001);
const noSuchUpload = (method: string) => failure(method, 'The specified multipart upload does not exist.', 10024);

export function partsDir(bucketDir: string): string {
  return path.join(bucketDir, 'parts');
}

/** Removes part files no row names (a part whose commit never happened, a completed or aborted upload's). */
export async function sweepParts(store: BindingStore): Promise<void> {
  const dir = partsDir(store.dir);
  if (!fs.existsSync(dir)) return;
  const named = new Set(await store.read((db) => db.exec('SELECT file FROM parts').rows.map((r) => String(r[0]))));
  for (const file of fs.readdirSync(dir)) if (!named.has(file.replace(/\.bin$/, ''))) fs.rmSync(path.join(dir, file), { force: true });
}

/** R2's multipart etag: the md5 of the parts' md5 digests, then `-<count>`. */
function multipartEtag(md5s: readonly string[]): string {
  const hash = createHash('md5');
  for (const md5 of md5s) hash.update(Buffer.from(md5, 'hex'));
  return `${hash.digest('hex')}-${md5s.length}`;
}

export async function createUpload(
  host: MultipartHost,
  key: string,
  options: { http: Record<string, string | number>; custom: Record<string, string> },
): Promise<R2MultipartUpload> {
  await host.ready('createMultipartUpload', key);
  const id = randomBytes(32).toString('base64url');
  await host.store.write((db) =>
    db.exec('INSERT INTO uploads (id, key, http, custom, state) VALUES (?, ?, ?, ?, ?)', [
      id,
      key,
      JSON.stringify(options.http),
      JSON.stringify(options.custom),
      IN_PROGRESS,
    ]),
  );
  return new R2MultipartUpload(host, key, id);
}

export class R2MultipartUpload {
  constructor(
    private readonly host: MultipartHost,
    readonly key: string,
    readonly uploadId: string,
  ) {}

  private partFile(file: string): string {
    return path.join(partsDir(this.host.store.dir), `${file}.bin`);
  }

  async uploadPart(partNumber: number, value: unknown): Promise<R2UploadedPart> {
    const method = 'uploadPart';
    // As workerd: the number is taken as an integer (1.5 is part 1), then checked.
    partNumber = Math.trunc(Number(partNumber)) | 0;
    if (partNumber < 1 || partNumber > MAX_PART_NUMBER)
      throw new TypeError(`Part number must be between 1 and ${MAX_PART_NUMBER} (inclusive). Actual value was: ${partNumber}`);
    const bytes = await this.host.toBytes(value);
    if (bytes === undefined)
      throw new TypeError(
        "Failed to execute 'uploadPart' on 'R2MultipartUpload': parameter 2 is not of type 'ReadableStream or ArrayBuffer or ArrayBufferView or string or Blob'.",
      );
    await this.host.ready(method, this.key);
    const file = randomBytes(16).toString('hex');
    const part: PartRow = {
      number: partNumber,
      file,
      size: bytes.byteLength,
      etag: randomBytes(16).toString('hex'),
      md5: createHash('md5').update(bytes).digest('hex'),
    };
    await this.host.writeFile(this.partFile(file), bytes);
    let replaced: string | undefined;
    try {
      replaced = await this.host.store.write((db) => {
        if (this.state(db) !== IN_PROGRESS) throw noSuchUpload(method);
        const old = db.exec('SELECT file FROM parts WHERE upload = ? AND number = ?', [this.uploadId, partNumber]).rows[0]?.[0];
        db.exec('INSERT OR REPLACE INTO parts (upload, number, file, size, etag, md5) VALUES (?, ?, ?, ?, ?, ?)', [
          this.uploadId,
          partNumber,
          file,
          part.size,
          part.etag,
          part.md5,
        ]);
        return old === undefined ? undefined : String(old);
      });
    } catch (error) {
      fs.rmSync(this.partFile(file), { force: true });
      throw error;
    }
    if (replaced !== undefined) fs.rmSync(this.partFile(replaced), { force: true });
    return { partNumber, etag: part.etag };
  }

  /** The upload's state when it belongs to this key; undefined for an id this key never had. */
  private state(db: DurableDatabase): number | undefined {
    const row = db.exec('SELECT state FROM uploads WHERE id = ? AND key = ?', [this.uploadId, this.key]).rows[0];
    return row === undefined ? undefined : Number(row[0]);
  }

  async abort(): Promise<void> {
    const method = 'abortMultipartUpload';
    await this.host.ready(method, this.key);
    const files = await this.host.store.write((db) => {
      const state = this.state(db);
      if (state === undefined) throw internal(method);
      if (state !== IN_PROGRESS) return [];
      const rows = db.exec('SELECT file FROM parts WHERE upload = ?', [this.uploadId]).rows.map((r) => String(r[0]));
      db.exec('DELETE FROM parts WHERE upload = ?', [this.uploadId]);
      db.exec('UPDATE uploads SET state = ? WHERE id = ?', [ABORTED, this.uploadId]);
      return rows;
    });
    for (const file of files) fs.rmSync(this.partFile(file), { force: true });
  }

  async complete(uploadedParts: readonly R2UploadedPart[]): Promise<R2Object> {
    const method = 'completeMultipartUpload';
    await this.host.ready(method, this.key);
    const chosen = [...uploadedParts].map((p) => ({ partNumber: Number(p.partNumber), etag: String(p.etag) }));
    const { upload, parts } = await this.host.store.read((db) => this.choose(db, method, chosen));
    const version = randomBytes(16).toString('hex');
    await this.host.writeBlobFromFiles(
      version,
      parts.map((p) => this.partFile(p.file)),
    );
    const object: StoredObject = {
      key: this.key,
      version,
      size: parts.reduce((sum, p) => sum + p.size, 0),
      etag: multipartEtag(parts.map((p) => p.md5)),
      uploaded: this.host.now(),
      http: JSON.parse(upload.http),
      custom: JSON.parse(upload.custom),
      checksums: {},
    };
    let files: string[] = [];
    let replaced: string | undefined;
    try {
      replaced = await this.host.commitObject(object, (db) => {
        // Checked again where it counts: nothing changed the upload while the bytes were copied.
        const again = this.choose(db, method, chosen).parts;
        if (again.some((p, i) => p.file !== parts[i]!.file)) throw failure(method, 'There was a problem with the multipart upload.', 10048);
        files = db.exec('SELECT file FROM parts WHERE upload = ?', [this.uploadId]).rows.map((r) => String(r[0]));
        db.exec('DELETE FROM parts WHERE upload = ?', [this.uploadId]);
        db.exec('UPDATE uploads SET state = ? WHERE id = ?', [COMPLETED, this.uploadId]);
      });
    } catch (error) {
      this.host.dropBlob(version);
      throw error;
    }
    if (replaced !== undefined) this.host.dropBlob(replaced);
    for (const file of files) fs.rmSync(this.partFile(file), { force: true });
    return new R2Object(object, null);
  }

  /** The parts `chosen` names, in part order, after Miniflare's checks in Miniflare's order. */
  private choose(db: DurableDatabase, method: string, chosen: readonly R2UploadedPart[]): { upload: { http: string; custom: string }; parts: PartRow[] } {
    const row = db.exec('SELECT http, custom, state FROM uploads WHERE id = ? AND key = ?', [this.uploadId, this.key]).rows[0];
    if (row === undefined) throw internal(method);
    if (Number(row[2]) !== IN_PROGRESS) throw noSuchUpload(method);
    const numbers = new Set<number>();
    for (const { partNumber } of chosen) {
      if (numbers.has(partNumber)) throw internal(method);
      numbers.add(partNumber);
    }
    const sent = new Map<number, PartRow>();
    for (const [number, file, size, etag, md5] of db.exec('SELECT number, file, size, etag, md5 FROM parts WHERE upload = ?', [this.uploadId]).rows) {
      sent.set(Number(number), { number: Number(number), file: String(file), size: Number(size), etag: String(etag), md5: String(md5) });
    }
    const parts = chosen.map(({ partNumber, etag }) => {
      const part = sent.get(partNumber);
      if (part?.etag !== etag) throw failure(method, 'One or more of the specified parts could not be found.', 10025);
      return part;
    });
    for (const part of parts.slice(0, -1))
      if (part.size < MIN_PART_BYTES) throw failure(method, 'Your proposed upload is smaller than the minimum allowed object size.', 10011);
    parts.sort((a, b) => a.number - b.number);
    const bad = () => failure(method, 'There was a problem with the multipart upload.', 10048);
    const size = parts.length > 1 ? parts[0]!.size : undefined;
    for (const part of parts.slice(0, -1)) if (part.size < MIN_PART_BYTES || part.size !== size) throw bad();
    if (size !== undefined && parts[parts.length - 1]!.size > size) throw bad();
    return { upload: { http: String(row[0]), custom: String(row[1]) }, parts };
  }
}
