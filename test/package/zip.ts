// A .vsix is a zip: its entries read from the central directory (APPNOTE.TXT 4.3.12, 4.3.16),
// stored or deflated, with the Unix mode vsce records in the external attributes.
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';

export interface ZipEntry {
  readonly name: string;
  readonly size: number;
  /** Bytes in the archive. */
  readonly compressedSize: number;
  /** Unix permission bits (0o755 for an executable), 0 when the archive has none. */
  readonly mode: number;
  read(): Buffer;
}

export function readZip(file: string): ZipEntry[] {
  const zip = fs.readFileSync(file);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error(`${file} is not a zip (no end of central directory)`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const mode = (zip.readUInt32LE(at + 38) >>> 16) & 0o7777;
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const read = () => {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return zlib.inflateRawSync(data);
      throw new Error(`${name}: compression method ${method}`);
    };
    entries.push({ name, size, compressedSize: compressed, mode, read });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
