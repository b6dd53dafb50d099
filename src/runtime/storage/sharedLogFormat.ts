/**
 * The on-disk format of the shared log (sharedLog.ts), written and read here side by side.
 *
 * A file `log-<generation>.wal` is the 8-byte magic `HBWAL001` (the format's version) followed by
 * commits. A commit is what one write + fdatasync made durable: [u32 length][u32 crc32][payload],
 * and its payload is one entry per instance that wrote in it: [u16 id length][id, UTF-8][u32 frames
 * length][frames], where the id is the instance's folder relative to the data folder ('/'
 * separated) and the frames are that instance's journal records exactly as journal.ts frames them
 * (each with its sequence number). A torn final commit was never acknowledged and is dropped; a
 * bad commit followed by more data is corruption, as in a journal.
 */
import { crc32 } from 'node:zlib';
import { StorageCorruptError } from '../errors';

export const LOG_MAGIC = Buffer.from('HBWAL001', 'ascii');
const HEADER = 8;

/** One instance's records within a commit. */
export interface LogEntry {
  readonly id: string;
  /** Journal frames (journal.ts's `encodeRecord`), concatenated. */
  readonly frames: Buffer;
}

export function logFileName(generation: number): string {
  return `log-${String(generation).padStart(8, '0')}.wal`;
}

/** The generations of the log files among `names`, oldest first. */
export function logGenerations(names: readonly string[]): number[] {
  return names
    .map((name) => /^log-(\d+)\.wal$/.exec(name)?.[1])
    .filter((g): g is string => g !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** One commit, framed: every entry of it is durable once this buffer is written and synced. */
export function encodeCommit(entries: readonly LogEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const { id, frames } of entries) {
    const name = Buffer.from(id, 'utf8');
    const head = Buffer.allocUnsafe(6);
    head.writeUInt16LE(name.length, 0);
    head.writeUInt32LE(frames.length, 2);
    parts.push(head.subarray(0, 2), name, head.subarray(2), frames);
  }
  const payload = Buffer.concat(parts);
  const frame = Buffer.allocUnsafe(HEADER + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  payload.copy(frame, HEADER);
  return frame;
}

/** Every complete commit of a log file's contents (each the entries it made durable), in order. */
export function decodeLog(data: Buffer, file: string): LogEntry[][] {
  if (data.length < LOG_MAGIC.length) return []; // created, never written: a crash at its start
  if (!data.subarray(0, LOG_MAGIC.length).equals(LOG_MAGIC))
    throw new StorageCorruptError(file, 'not a Hookbench shared log (bad header); the file was left untouched');
  const commits: LogEntry[][] = [];
  for (let offset = LOG_MAGIC.length; data.length - offset >= HEADER;) {
    const end = offset + HEADER + data.readUInt32LE(offset);
    if (end > data.length) break;
    const payload = data.subarray(offset + HEADER, end);
    if (crc32(payload) !== data.readUInt32LE(offset + 4)) {
      if (end === data.length) break; // the last commit was torn mid-write: never acknowledged
      throw new StorageCorruptError(file, `commit at byte ${offset} fails its checksum and more commits follow`);
    }
    commits.push(decodeEntries(payload, file));
    offset = end;
  }
  return commits;
}

function decodeEntries(payload: Buffer, file: string): LogEntry[] {
  const entries: LogEntry[] = [];
  for (let at = 0; at < payload.length;) {
    const idLength = payload.readUInt16LE(at);
    const id = payload.subarray(at + 2, at + 2 + idLength).toString('utf8');
    const length = payload.readUInt32LE(at + 2 + idLength);
    const start = at + 6 + idLength;
    if (start + length > payload.length) throw new StorageCorruptError(file, `an entry of ${id} runs past its commit`);
    entries.push({ id, frames: payload.subarray(start, start + length) });
    at = start + length;
  }
  return entries;
}
