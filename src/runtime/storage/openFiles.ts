/**
 * Append descriptors for journal files, kept open for the files used most recently and at most
 * `limit` at once: a busy instance writes without an open and a close per group commit, while a
 * thousand awake instances still hold a bounded number of descriptors (Linux's default limit is
 * 1,024, macOS's 256). A descriptor in use is never closed under its user.
 */
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { APPEND, PRIVATE_FILE_MODE } from '../../core/privateFiles';

const open = promisify(fs.open);
const close = promisify(fs.close);

interface Entry {
  readonly fd: Promise<number>;
  users: number;
  /** Set once the entry left the table: the last user closes it. */
  retired: boolean;
}

export class OpenFiles {
  /** Insertion order is recency: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly limit: number) {}

  /** Runs `fn` with an append descriptor of `file`. A failure closes it: the next use reopens. */
  async use<T>(file: string, fn: (fd: number) => Promise<T>): Promise<T> {
    let entry = this.entries.get(file);
    if (entry) this.entries.delete(file);
    else entry = { fd: open(file, APPEND, PRIVATE_FILE_MODE), users: 0, retired: false };
    this.entries.set(file, entry);
    entry.users++;
    this.trim();
    try {
      return await fn(await entry.fd);
    } catch (error) {
      this.retire(file, entry);
      throw error;
    } finally {
      entry.users--;
      if (entry.retired && entry.users === 0) closeQuietly(entry);
      // Uses that overlapped may have passed the limit; the last of them brings it back.
      this.trim();
    }
  }

  /** Closes `file`'s descriptor once nobody uses it (a journal generation being replaced). */
  release(file: string): void {
    const entry = this.entries.get(file);
    if (entry) this.retire(file, entry);
  }

  private trim(): void {
    if (this.entries.size <= this.limit) return;
    for (const [file, entry] of this.entries) {
      if (this.entries.size <= this.limit) return;
      if (entry.users === 0) this.retire(file, entry);
    }
  }

  private retire(file: string, entry: Entry): void {
    if (this.entries.get(file) === entry) this.entries.delete(file);
    if (entry.retired) return;
    entry.retired = true;
    if (entry.users === 0) closeQuietly(entry);
  }
}

function closeQuietly(entry: Entry): void {
  entry.fd.then((fd) => close(fd)).catch(() => undefined);
}

/** The process's journal descriptors, shared by every instance. */
export const journalFiles = new OpenFiles(128);
