/**
 * The append-only journal of one instance: each record is one write group (the statements of one
 * synchronous stretch of agent code), framed as [u32 length][u32 crc32][payload], with a sequence
 * number in the payload. A record is durable once `flush` resolves (write + fdatasync). Reading
 * stops at a torn final record (a crash mid-append), which was never acknowledged; a bad record
 * followed by more data is corruption and is reported, never skipped.
 */
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { StorageCorruptError } from '../errors';
import { journalFiles, type OpenFiles } from './openFiles';
import { APPEND, PRIVATE_FILE_MODE, readPrivate } from './privateFiles';

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
  const payload = Buffer.from(
    JSON.stringify({ seq: record.seq, s: record.statements.map((s) => [s.sql, s.params.map(encodeValue)]) }),
    'utf8',
  );
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

const fdatasync = promisify(fs.fdatasync);

/** Appends records and makes them durable in group commits: one write + fdatasync per batch. */
export class JournalWriter {
  private pending: Buffer[] = [];
  private inFlight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private bytes: number;

  /**
   * Creates `file` if needed, synchronously, so a writer can be swapped in one step. Its
   * descriptor comes from `files`, which bounds how many journals are open at once.
   */
  constructor(
    readonly file: string,
    private readonly files: OpenFiles = journalFiles,
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

  /** Bytes durably in the file. */
  get size(): number {
    return this.bytes;
  }

  /**
   * Resolves once everything appended so far is on disk. Callers that arrive while a batch is
   * being written share the following batch, so many requests cost one fdatasync.
   */
  flush(): Promise<void> {
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

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.files.release(this.file);
    }
  }
}
