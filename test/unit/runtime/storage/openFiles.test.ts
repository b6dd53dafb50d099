import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OpenFiles } from '../../../../src/runtime/storage/openFiles';

// What the pool holds is counted where the kernel keeps it: this process's descriptors (Linux).
const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

function files(count: number): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-openfiles-'));
  return Array.from({ length: count }, (_, i) => path.join(dir, `journal-${i}.log`));
}

describe('open files', () => {
  it('reuses the descriptor of a file used again', async () => {
    const pool = new OpenFiles(4);
    const [file] = files(1);
    const first = await pool.use(file!, async (fd) => fd);
    const second = await pool.use(file!, async (fd) => fd);
    assert.equal(second, first);
    pool.release(file!);
  });

  it('holds at most its limit however many files are written, and everything written arrives', async () => {
    const pool = new OpenFiles(8);
    const names = files(200);
    await settle();
    const before = openDescriptors();
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        names.map((file, i) =>
          pool.use(file, (fd) => new Promise<void>((resolve, reject) => fs.write(fd, `${round}:${i}\n`, (e) => (e ? reject(e) : resolve())))),
        ),
      );
    }
    await settle();
    assert.equal(openDescriptors() - before, 8, 'descriptors held: the limit');
    for (const [i, file] of names.entries()) assert.equal(fs.readFileSync(file, 'utf8'), `0:${i}\n1:${i}\n2:${i}\n`);
    for (const file of names) pool.release(file);
    await settle();
    assert.equal(openDescriptors() - before, 0, 'descriptors held once every file is released');
  });

  it('never closes a descriptor while it is in use, even when the limit is passed', async () => {
    const pool = new OpenFiles(1);
    const [a, b] = files(2);
    let release!: () => void;
    let inUse!: () => void;
    const using = new Promise<void>((resolve) => (inUse = resolve));
    const held = pool.use(a!, async (fd) => {
      await new Promise<void>((resolve) => {
        release = resolve;
        inUse();
      });
      fs.writeSync(fd, 'still open\n');
    });
    // a's descriptor is in use (its open may take a turn of its own) before b passes the limit.
    await using;
    await pool.use(b!, async (fd) => void fs.writeSync(fd, 'b\n'));
    release();
    await held;
    assert.equal(fs.readFileSync(a!, 'utf8'), 'still open\n');
    pool.release(a!);
    pool.release(b!);
  });

  it('closes a descriptor whose use failed, and opens a fresh one next time', async () => {
    const pool = new OpenFiles(4);
    const [file] = files(1);
    await settle();
    const before = openDescriptors();
    const failed = await pool.use(file!, async (fd) => fd);
    await assert.rejects(
      pool.use(file!, async () => Promise.reject(new Error('ENOSPC'))),
      /ENOSPC/,
    );
    await settle();
    assert.equal(openDescriptors() - before, 0, 'the pool holds no descriptor of the file');
    assert.throws(() => fs.fstatSync(failed), /EBADF/);
    await pool.use(file!, async (fd) => void fs.writeSync(fd, 'again\n'));
    assert.equal(fs.readFileSync(file!, 'utf8'), 'again\n');
    pool.release(file!);
  });
});
