/**
 * The data folder's shared log: what every instance commits in one turn is made durable by one
 * write + fdatasync here, instead of one fdatasync per instance's journal (docs/runtime.md,
 * "Durability"). Each instance still appends its records to its own journal, without a sync; the
 * log holds them until a checkpoint has synced those journals, then its file is deleted.
 *
 * - Commits: appends that arrive in the same turn, and all that arrive while a sync is under way,
 *   go out as one commit (sharedLogFormat.ts), in order.
 * - Checkpoint: once a log file passes `limitBytes`, a new one is started; the journals written
 *   during the old one are fdatasync'd, and then the old file is deleted. A journal that closes
 *   syncs itself first, so an instance can be closed (evicted) and reopened at any time.
 * - Recovery, before the first instance opens: each instance's records in the log that its newest
 *   journal does not end with are appended to it and synced, then the log files are deleted.
 *   Replay skips records a snapshot already holds, so appending a few twice is harmless.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { StorageCorruptError } from '../errors';
import { decodeRecords, encodeRecord, journalGenerations, journalName, readJournal, type CommitLog, type JournalRecord, type SyncableJournal } from './journal';
import { decodeLog, encodeCommit, LOG_MAGIC, logFileName, logGenerations, type LogEntry } from './sharedLogFormat';
import { APPEND, CREATE_NEW, mkdirPrivate, PRIVATE_FILE_MODE, readPrivate } from '../../core/privateFiles';
import { syncDirectory } from './snapshot';

const fdatasync = promisify(fs.fdatasync);

/** Log bytes after which a checkpoint starts a new file (default 16 MiB). */
const DEFAULT_LIMIT = 16 * 1024 * 1024;

interface Pending {
  readonly journal: SyncableJournal;
  readonly entry: LogEntry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

interface Generation {
  readonly number: number;
  readonly fd: number;
  size: number;
  /** The journals with records in this file: synced before it may be deleted. */
  readonly journals: Set<SyncableJournal>;
}

export class SharedLog implements CommitLog {
  private opened: Promise<void> | undefined;
  private current: Generation | undefined;
  private pending: Pending[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;
  private checkpoints: Promise<void> = Promise.resolve();

  /**
   * @param root the data folder: instances are named by their folder relative to it
   * @param dir where the log's files live
   */
  constructor(
    readonly root: string,
    readonly dir: string,
    private readonly limitBytes = DEFAULT_LIMIT,
  ) {}

  /** The id of the instance kept in `instanceDir`, or undefined when it is outside the data folder. */
  idOf(instanceDir: string): string | undefined {
    const relative = path.relative(this.root, instanceDir);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  }

  /** Recovers what an earlier process left (once), and opens the log for commits. */
  ready(): Promise<void> {
    this.opened ??= this.open();
    this.opened.catch(() => (this.opened = undefined));
    return this.opened;
  }

  /** Resolves once `frames` (and everything appended before) is durable. */
  append(journal: SyncableJournal, id: string, frames: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ journal, entry: { id, frames }, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Once nothing is left to commit and every journal written since the log opened is synced,
   * deletes the log's files. Called when serve stops, after its instances closed; the next use
   * opens the log again.
   */
  async close(): Promise<void> {
    if (!this.opened) return;
    await this.opened;
    while (this.running || this.scheduled) await (this.running ?? new Promise((resolve) => setImmediate(resolve)));
    const last = this.current;
    this.current = undefined;
    this.opened = undefined;
    await this.checkpoints;
    if (last) await this.retire(last);
  }

  private async open(): Promise<void> {
    mkdirPrivate(this.dir);
    const generations = logGenerations(fs.readdirSync(this.dir));
    const files = generations.map((g) => path.join(this.dir, logFileName(g)));
    this.recover(files.flatMap((file) => decodeLog(readPrivate(file), file).flat()));
    for (const file of files) fs.unlinkSync(file);
    this.current = await this.startGeneration((generations.at(-1) ?? 0) + 1);
  }

  /** Appends to each instance's newest journal the records of the log it does not end with. */
  private recover(entries: readonly LogEntry[]): void {
    const byId = new Map<string, Buffer[]>();
    for (const { id, frames } of entries) {
      const found = byId.get(id);
      if (found) found.push(frames);
      else byId.set(id, [frames]);
    }
    for (const [id, frames] of byId) {
      const instanceDir = path.resolve(this.root, id);
      if (this.idOf(instanceDir) !== id)
        throw new StorageCorruptError(this.dir, `the shared log names ${JSON.stringify(id)}, which is not a folder inside the data folder`);
      mkdirPrivate(instanceDir);
      const file = path.join(instanceDir, journalName(journalGenerations(instanceDir).at(-1) ?? 1));
      const last = readJournal(file).records.at(-1)?.seq ?? 0;
      const missing = newestBySeq(decodeRecords(Buffer.concat(frames), file).records).filter((record) => record.seq > last);
      if (missing.length === 0) continue;
      appendDurably(file, Buffer.concat(missing.map(encodeRecord)));
      syncDirectorySync(instanceDir);
    }
  }

  private async startGeneration(number: number): Promise<Generation> {
    const file = path.join(this.dir, logFileName(number));
    const fd = fs.openSync(file, CREATE_NEW, PRIVATE_FILE_MODE);
    try {
      writeAll(fd, LOG_MAGIC, 0);
      await fdatasync(fd);
      // The file's name must be durable before anything acknowledged is only in it.
      await syncDirectory(this.dir);
    } catch (error) {
      fs.closeSync(fd);
      fs.rmSync(file, { force: true });
      throw error;
    }
    return { number, fd, size: LOG_MAGIC.length, journals: new Set() };
  }

  /** One commit for everything appended in this turn. */
  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.running = this.run().finally(() => (this.running = undefined));
    });
  }

  private async run(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        await this.ready();
        await this.commit(batch);
        for (const { resolve } of batch) resolve();
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
      if (this.current && this.current.size >= this.limitBytes) await this.checkpoint();
    }
  }

  private async commit(batch: readonly Pending[]): Promise<void> {
    const generation = this.current!;
    const commit = encodeCommit(batch.map((p) => p.entry));
    try {
      writeAll(generation.fd, commit, generation.size);
    } catch (error) {
      // A full disk wrote part of it: cut it off, or the next commit would follow a torn one.
      try {
        fs.ftruncateSync(generation.fd, generation.size);
      } catch {
        // Reading stops at the torn commit anyway while nothing follows it.
      }
      throw error;
    }
    generation.size += commit.length;
    for (const { journal } of batch) generation.journals.add(journal);
    await fdatasync(generation.fd);
  }

  /** Starts a new file; the old one is deleted once the journals it covers are synced. */
  private async checkpoint(): Promise<void> {
    const old = this.current!;
    try {
      this.current = await this.startGeneration(old.number + 1);
    } catch {
      return; // no room for a new file: keep committing to this one, and try again later
    }
    this.checkpoints = this.checkpoints.then(() => this.retire(old));
  }

  private async retire(generation: Generation): Promise<void> {
    try {
      await Promise.all([...generation.journals].map((journal) => journal.sync()));
      fs.unlinkSync(path.join(this.dir, logFileName(generation.number)));
    } catch {
      // A journal could not be synced: the file stays, and the next start recovers from it.
    } finally {
      fs.closeSync(generation.fd);
    }
  }
}

/**
 * The records in sequence order, the later of two with one sequence number winning: an instance
 * whose own journal refused a write reopens and writes that number again, while the log may still
 * hold the refused record (never acknowledged) before it.
 */
function newestBySeq(records: readonly JournalRecord[]): JournalRecord[] {
  const bySeq = new Map<number, JournalRecord>();
  for (const record of records) bySeq.set(record.seq, record);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * Writes `data` at `position`, never at the file's offset: after a full disk wrote part of a commit
 * and the file was cut back, the offset is past the end, and the next commit would follow a hole.
 */
function writeAll(fd: number, data: Buffer, position: number): void {
  for (let written = 0; written < data.length;) written += fs.writeSync(fd, data, written, data.length - written, position + written);
}

function syncDirectorySync(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function appendDurably(file: string, data: Buffer): void {
  const fd = fs.openSync(file, APPEND, PRIVATE_FILE_MODE);
  try {
    // O_APPEND: each write goes at the end, whatever position it names.
    writeAll(fd, data, 0);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
