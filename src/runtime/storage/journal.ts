/**
 * The append-only journal of one instance: each record is one write group (the statements of one
 * synchronous stretch of agent code), framed as [u32 length][u32 crc32][payload], with a sequence
 * number in the payload. A record is durable once `flush` resolves (write + fdatasync of this
 * file, or of the shared log: sharedLog.ts). Reading stops at a torn final record (a crash
 * mid-append), which was never acknowledged; a bad record followed by more data is corruption and
 * is reported, never skipped.
 */
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { StorageCorruptError } from '../errors';
import { journalFiles, type OpenFiles } from './openFiles';
import { APPEND, PRIVATE_FILE_MODE, readPrivate } from '../../core/privateFiles';

export type SqlValue = string | number | null | Uint8Array;

export interface Statement {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

export interface JournalRecord {
  readonly seq: number;
  readonly statements: readonly Statement[];
}

const HEADER = 8;

function encodeValue(value: SqlValue): unknown {
  return value instanceof Uint8Array ? { $b: Buffer.from(value).toString('base64') } : value;
}

function decodeValue(value: unknown): SqlValue {
  if (value !== null && typeof value === 'object' && '$b' in value) return new Uint8Array(Buffer.from(String(value.$b), 'base64'));
  return value as SqlValue;
}

export function encodeRecord(record: JournalRecord): Buffer {
  const payload = Buffer.from(JSON.stringify({ seq: record.seq, s: record.statements.map((s) => [s.sql, s.params.map(encodeValue)]) }), 'utf8');
  const frame = Buffer.allocUnsafe(HEADER + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  payload.copy(frame, HEADER);
  return frame;
}

/** Every complete record of `data`, and the length of the valid prefix. */
export function decodeRecords(data: Buffer, file: string): { records: JournalRecord[]; validLength: number } {
  const records: JournalRecord[] = [];
  let offset = 0;
  while (offset < data.length) {
    if (data.length - offset < HEADER) break;
    const length = data.readUInt32LE(offset);
    const end = offset + HEADER + length;
    if (end > data.length) break;
    const payload = data.subarray(offset + HEADER, end);
    if (crc32(payload) !== data.readUInt32LE(offset + 4)) {
      if (end === data.length) break; // the last record was torn mid-write
      throw new StorageCorruptError(file, `journal record at byte ${offset} fails its checksum and more records follow`);
    }
    const parsed = JSON.parse(payload.toString('utf8')) as { seq: number; s: [string, unknown[]][] };
    records.push({ seq: parsed.seq, statements: parsed.s.map(([sql, params]) => ({ sql, params: params.map(decodeValue) })) });
    offset = end;
  }
  return { records, validLength: offset };
}

/** Reads a journal, truncating a torn tail in place. */
export function readJournal(file: string): { records: JournalRecord[]; droppedBytes: number } {
  let data: Buffer;
  try {
    data = readPrivate(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], droppedBytes: 0 };
    throw error;
  }
  const { records, validLength } = decodeRecords(data, file);
  if (validLength < data.length) {
    const fd = fs.openSync(file, APPEND, PRIVATE_FILE_MODE);
    try {
      fs.ftruncateSync(fd, validLength);
    } finally {
      fs.closeSync(fd);
    }
  }
  return { records, droppedBytes: data.length - validLength };
}

/** The file name of a journal generation in an instance's folder. */
export function journalName(generation: number): string {
  return `journal-${String(generation).padStart(8, '0')}.log`;
}

/** The journal generations in `dir`, oldest first. */
export function journalGenerations(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .map((f) => /^journal-(\d+)\.log$/.exec(f)?.[1])
    .filter((g): g is string => g !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

const fdatasync = promisify(fs.fdatasync);

/** A journal the shared log can make durable on its own before it drops its copy of the records. */
export interface SyncableJournal {
  /** Resolves once the journal's file holds everything written to it so far durably. */
  sync(): Promise<void>;
}

/** Where a journal's records are made durable when it does not sync its own file (sharedLog.ts). */
export interface CommitLog {
  /** Resolves once `frames`, the journal `id`'s records, are durable. */
  append(journal: SyncableJournal, id: string, frames: Buffer): Promise<void>;
}

/** A journal's place in a commit log: the log, and the id its records go under. */
export interface SharedCommits {
  readonly log: CommitLog;
  readonly id: string;
}

/**
 * Appends records and makes them durable in group commits. Alone, one write + fdatasync of its
 * file per batch; with a shared commit log, its file is only written and the log's commit (one
 * sync for every journal that wrote in the turn) makes the batch durable.
 */
export class JournalWriter implements SyncableJournal {
  private pending: Buffer[] = [];
  private inFlight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private bytes: number;
  /** With a shared log: the writes to this file, in order, and the newest batch's durability. */
  private writing: Promise<void> = Promise.resolve();
  private durable: Promise<void> = Promise.resolve();
  private closed = false;

  /**
   * Creates `file` if needed, synchronously, so a writer can be swapped in one step. Its
   * descriptor comes from `files`, which bounds how many journals are open at once.
   */
  constructor(
    readonly file: string,
    private readonly files: OpenFiles = journalFiles,
    private readonly shared?: SharedCommits,
  ) {
    const fd = fs.openSync(file, APPEND, PRIVATE_FILE_MODE);
    try {
      this.bytes = fs.fstatSync(fd).size;
    } finally {
      fs.closeSync(fd);
    }
  }

  append(record: JournalRecord): void {
    this.pending.push(encodeRecord(record));
  }

  /** Bytes in the file (durable once the last flush resolved). */
  get size(): number {
    return this.bytes;
  }

  /**
   * Resolves once everything appended so far is on disk. Callers that arrive while a batch is
   * being written share the following batch, so many requests cost one fdatasync.
   */
  flush(): Promise<void> {
    if (this.shared) return this.flushShared(this.shared);
    if (this.inFlight) {
      this.next ??= this.inFlight.then(
        () => this.flushNext(),
        () => this.flushNext(),
      );
      return this.next;
    }
    if (this.pending.length === 0) return Promise.resolve();
    const batch = Buffer.concat(this.pending.splice(0));
    this.inFlight = (async () => {
      try {
        await this.files.use(this.file, async (fd) => {
          // The append itself only copies into the page cache: done here, it spares a trip
          // through the thread pool per group commit; the fdatasync that makes it durable (and
          // that the output gate waits for) still runs off the event loop.
          let written = 0;
          while (written < batch.length) written += fs.writeSync(fd, batch, written);
          await fdatasync(fd);
        });
        this.bytes += batch.length;
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }

  private flushNext(): Promise<void> {
    this.next = undefined;
    return this.flush();
  }

  /** Writes the batch to this file (no sync) and hands it to the shared log, which makes it durable. */
  private flushShared({ log, id }: SharedCommits): Promise<void> {
    if (this.pending.length === 0) return this.durable;
    const batch = Buffer.concat(this.pending.splice(0));
    // Written here first, then handed to the log: the log never holds a record its journal lacks,
    // and after a refused write none follows (the database is reopened from what is durable).
    const written = (this.writing = this.writing.then(() => this.files.use(this.file, async (fd) => this.writeAt(fd, batch))));
    this.durable = written.then(() => log.append(this, id, batch));
    return this.durable;
  }

  /** Appends `batch`; a write the disk cut short is taken back, so no later record follows a torn one. */
  private writeAt(fd: number, batch: Buffer): void {
    let written = 0;
    try {
      while (written < batch.length) written += fs.writeSync(fd, batch, written);
    } catch (error) {
      if (written > 0) truncateQuietly(fd, this.bytes);
      throw error;
    }
    this.bytes += batch.length;
  }

  async sync(): Promise<void> {
    await this.writing;
    // Closed, it synced itself; its file may even be gone (a snapshot covered it).
    if (this.closed) return;
    await this.files.use(this.file, (fd) => fdatasync(fd));
  }

  async close(): Promise<void> {
    try {
      await this.flush();
      // The shared log drops its copy once its file is done: this file must hold the records.
      if (this.shared) await this.sync();
    } finally {
      this.closed = true;
      this.files.release(this.file);
    }
  }
}

function truncateQuietly(fd: number, length: number): void {
  try {
    fs.ftruncateSync(fd, length);
  } catch {
    // Reading stops at the torn record anyway while nothing follows it.
  }
}
