/**
 * Snapshots of an instance's database: [8-byte magic][u32 crc32][u32 reserved][SQLite image],
 * written to a temp file, fsync'd, renamed over the old one, and the directory fsync'd, so a crash
 * leaves either the old snapshot or the new one, never half of one. A snapshot whose checksum or
 * magic does not match is reported as corrupt, never silently replaced.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { StorageCorruptError } from './errors';

const MAGIC = Buffer.from('HBSNAP01', 'ascii');
const HEADER = 16;

export async function writeSnapshot(file: string, image: Uint8Array): Promise<void> {
  const header = Buffer.alloc(HEADER);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(crc32(image), 8);
  const temp = `${file}.tmp`;
  const handle = await fs.promises.open(temp, 'w');
  try {
    await handle.writev([header, image]);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(temp, file);
  await syncDirectory(path.dirname(file));
}

/** The SQLite image of a snapshot, undefined when there is none yet. */
export function readSnapshot(file: string): Uint8Array | undefined {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
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
