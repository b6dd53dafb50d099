/**
 * Snapshots of an instance's database: [8-byte magic][u32 crc32][u32 reserved][SQLite image],
 * written in full to a temp file, fsync'd, renamed over the old one, and the directory fsync'd, so
 * a crash or a full disk leaves either the old snapshot or the new one, never half of one. A
 * snapshot whose checksum or magic does not match is reported as corrupt, never silently replaced.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { StorageCorruptError } from '../errors';
import { PRIVATE_FILE_MODE, readPrivate, REPLACE } from '../../core/privateFiles';

const MAGIC = Buffer.from('HBSNAP01', 'ascii');
const HEADER = 16;

export async function writeSnapshot(file: string, image: Uint8Array): Promise<void> {
  const header = Buffer.alloc(HEADER);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(crc32(image), 8);
  const temp = `${file}.tmp`;
  const handle = await fs.promises.open(temp, REPLACE, PRIVATE_FILE_MODE);
  try {
    try {
      await writeAll(handle, header, 0);
      await writeAll(handle, image, HEADER);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // A full disk: the temp file is no use, and takes room the journal needs.
    await fs.promises.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await fs.promises.rename(temp, file);
  await syncDirectory(path.dirname(file));
}

/**
 * Writes all of `data` at `position`. On a nearly full disk the kernel writes what fits and
 * answers with a short count; only the next write reports ENOSPC, so a single write would leave
 * a truncated file that looks written.
 */
async function writeAll(handle: fs.promises.FileHandle, data: Uint8Array, position: number): Promise<void> {
  for (let offset = 0; offset < data.length;) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset, position + offset);
    offset += bytesWritten;
  }
}

/** The SQLite image of a snapshot, undefined when there is none yet. */
export function readSnapshot(file: string): Uint8Array | undefined {
  let data: Buffer;
  try {
    data = readPrivate(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (data.length < HEADER || !data.subarray(0, 8).equals(MAGIC)) {
    throw new StorageCorruptError(file, 'not a Hookbench snapshot (bad header); the file was left untouched');
  }
  const image = data.subarray(HEADER);
  if (crc32(image) !== data.readUInt32LE(8)) {
    throw new StorageCorruptError(file, 'snapshot checksum mismatch; the file was left untouched');
  }
  return image;
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
