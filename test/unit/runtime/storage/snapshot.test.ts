// A snapshot that does not fit on the disk must fail, not be renamed over the good one half
// written: the kernel writes what fits and answers with a short count, and only the next write
// says ENOSPC. Needs root to mount a size-limited tmpfs (CI runs as root).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readSnapshot, writeSnapshot } from '../../../../src/runtime/storage/snapshot';

const root = process.getuid?.() === 0;

describe('snapshot files', () => {
  it(
    'fails on a full disk, keeps the previous snapshot readable and leaves no temp file',
    { skip: root ? false : 'mounting a size-limited tmpfs needs root' },
    async () => {
      const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-snapfull-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount]);
      try {
        const file = path.join(mount, 'db.snapshot');
        const previous = new Uint8Array(100 * 1024).fill(1);
        await writeSnapshot(file, previous);
        // Leave about 300 KiB free, then try a 600 KiB image.
        fs.writeFileSync(path.join(mount, 'filler'), Buffer.alloc(1024 * 1024 - 100 * 1024 - 300 * 1024 - 8192));
        await assert.rejects(writeSnapshot(file, new Uint8Array(600 * 1024).fill(2)), { code: 'ENOSPC' });
        assert.ok(Buffer.from(previous).equals(readSnapshot(file)!), 'the previous snapshot is intact');
        assert.deepEqual(fs.readdirSync(mount).sort(), ['db.snapshot', 'filler']);
      } finally {
        execFileSync('umount', ['-l', mount]);
      }
    },
  );
});
