/**
 * One instance's SQLite database on sql.js, made durable: opened from its snapshot plus the
 * journal records after it, every write statement journaled, `commit()` resolving once the writes
 * so far are on disk (the output gate waits on it), and snapshots that bound the journal.
 *
 * Files in the instance's directory: `db.snapshot` and `journal-<generation>.log`. A snapshot
 * swaps in a new journal generation in the same synchronous step as it takes the image, so every
 * record is either inside the image or in a newer generation; older generations are deleted once
 * the snapshot is durable. Replay skips records whose sequence number the snapshot already holds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic, Statement as SqlJsStatement } from 'sql.js';
import { StorageCorruptError, StorageWriteError } from '../errors';
import { journalGenerations, journalName, JournalWriter, readJournal, type SharedCommits, type SqlValue, type Statement } from './journal';
import { readSnapshot, syncDirectory, writeSnapshot } from './snapshot';
import type { SharedLog } from './sharedLog';
import { statementKind } from '../../core/sqlStatementKind';
import { PRIVATE_DIR_MODE } from '../../core/privateFiles';

const META = '_hookbench_meta';
const SNAPSHOT = 'db.snapshot';

/** SQLite's page cache when nobody set one (`cache_size = -2000`). */
const DEFAULT_CACHE_KIB = 2000;

/**
 * DDL that does nothing when its object exists (not TEMP, whose schema is apart): journaled only
 * when the schema's version shows it did change something.
 */
const IF_NOT_EXISTS_DDL = /^\s*CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)\s+IF\s+NOT\s+EXISTS\b/i;
const SCHEMA_VERSION = 'PRAGMA main.schema_version';
const PAGE_COUNT = 'PRAGMA main.page_count';
const PAGE_SIZE = 'PRAGMA main.page_size';
/** Statements a replay may run again from one compiled form. */
const REPLAY_REUSE = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

/**
 * Durability comes from Hookbench's own journal, so SQLite's rollback journal stays in memory
 * (still there for statement and savepoint rollback) instead of being a file that sql.js's
 * in-memory file system creates and deletes on every write.
 */
function tune(db: Database, cacheKiB: number | undefined): void {
  // One connection per database: holding the lock spares the hot-journal check of every transaction.
  db.run('PRAGMA locking_mode = EXCLUSIVE');
  db.run('PRAGMA journal_mode = MEMORY');
  db.run('PRAGMA temp_store = MEMORY');
  if (cacheKiB !== undefined) db.run(`PRAGMA cache_size = -${cacheKiB}`);
}

export interface OpenOptions {
  readonly sql: SqlJsStatic;
  /** The instance's own directory. */
  readonly dir: string;
  /** Journal bytes after which a snapshot is taken (default 4 MiB). */
  readonly snapshotAfterBytes?: number;
  /**
   * The data folder's shared log (sharedLog.ts): commits become durable with one sync for every
   * database that wrote in the turn. Without it (or for a folder outside its data folder), each
   * journal syncs its own file.
   */
  readonly log?: SharedLog;
}

export interface ExecResult {
  readonly columns: string[];
  readonly rows: SqlValue[][];
  readonly rowsWritten: number;
}

const MIN_SNAPSHOT_LIMIT = 256 * 1024;

export class DurableDatabase {
  private group: Statement[] = [];
  private broken: Error | undefined;
  /** Compiled statements by SQL text: agents run the same few statements on every request. */
  private readonly prepared = new Map<string, SqlJsStatement>();
  /** Write statements executed so far, and how many of them are known durable. */
  private writes = 0;
  private durableWrites = 0;
  private snapshotting: Promise<void> | undefined;
  /** Bytes of the newest snapshot: the journal may grow to twice that before the next one. */
  private snapshotBytes = 0;
  /** SQLite's page cache as set by `setCacheSize` (KiB); undefined keeps SQLite's default. */
  private cacheKiB: number | undefined;
  private closed = false;
  /** The file's size as last measured, and the write count it was measured at (memoryBytes). */
  private fileBytes = 0;
  private sizedAtWrite = -1;

  private constructor(
    private readonly db: Database,
    private journal: JournalWriter,
    private generation: number,
    private readonly dir: string,
    private seq: number,
    private readonly snapshotAfterBytes: number,
    /** Bytes of a torn journal tail dropped at open (a write that was never acknowledged). */
    readonly droppedBytes: number,
    private readonly shared: SharedCommits | undefined,
  ) {}

  static async open({ sql, dir, snapshotAfterBytes = 4 * 1024 * 1024, log }: OpenOptions): Promise<DurableDatabase> {
    // Recovery from the shared log completes the journals before any of them is read.
    await log?.ready();
    const id = log?.idOf(dir);
    const shared = log && id !== undefined ? { log, id } : undefined;
    await fs.promises.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const snapshotFile = path.join(dir, SNAPSHOT);
    const db = new sql.Database(readSnapshot(snapshotFile));
    let seq = 0;
    try {
      tune(db, undefined);
      db.run(`CREATE TABLE IF NOT EXISTS ${META} (k TEXT PRIMARY KEY, v INTEGER)`);
      seq = Number(db.exec(`SELECT v FROM ${META} WHERE k = 'seq'`)[0]?.values[0]?.[0] ?? 0);
    } catch (error) {
      db.close();
      throw new StorageCorruptError(snapshotFile, `the snapshot is not a readable database (${(error as Error).message})`);
    }
    const generations = journalGenerations(dir);
    let droppedBytes = 0;
    // A journal repeats a few statements (an agent's insert, its retention, its state): each is
    // compiled once for the replay. DDL is compiled where it runs, since it changes what the others mean.
    const compiled = new Map<string, SqlJsStatement>();
    const replay = (text: string, params: readonly SqlValue[]): void => {
      if (!REPLAY_REUSE.test(text)) return void db.run(text, params as never);
      let statement = compiled.get(text);
      if (!statement) compiled.set(text, (statement = db.prepare(text)));
      statement.run(params as never);
    };
    try {
      for (const generation of generations) {
        const { records, droppedBytes: dropped } = readJournal(path.join(dir, journalName(generation)));
        droppedBytes += dropped;
        for (const record of records) {
          if (record.seq <= seq) continue; // already inside the snapshot
          for (const { sql: text, params } of record.statements) replay(text, params);
          seq = record.seq;
        }
      }
    } finally {
      for (const statement of compiled.values()) statement.free();
    }
    const generation = generations.at(-1) ?? 1;
    const journal = new JournalWriter(path.join(dir, journalName(generation)), undefined, shared);
    await syncDirectory(dir);
    const opened = new DurableDatabase(db, journal, generation, dir, seq, snapshotAfterBytes, droppedBytes, shared);
    opened.snapshotBytes = fs.existsSync(snapshotFile) ? fs.statSync(snapshotFile).size : 0;
    return opened;
  }

  /** Runs one statement; every statement that may write is added to the current write group. */
  exec(text: string, params: readonly SqlValue[] = []): ExecResult {
    this.assertUsable();
    const kind = statementKind(text);
    if (kind === 'transaction') {
      throw new Error('To execute a transaction, use ctx.storage.transactionSync() instead of SQL BEGIN, COMMIT or SAVEPOINT statements');
    }
    // An agent's onStart runs its schema's CREATE … IF NOT EXISTS at every wake: where the object
    // exists it changes nothing, and journaling it would make every later open replay it.
    const schemaBefore = kind === 'other' && IF_NOT_EXISTS_DDL.test(text) ? this.schemaVersion() : undefined;
    const statement = this.statement(text);
    let reusable = true;
    try {
      statement.bind(params as never);
      const columns = statement.getColumnNames();
      const rows: SqlValue[][] = [];
      while (statement.step()) rows.push(statement.get() as SqlValue[]);
      // sqlite3_changes() is only set by INSERT, UPDATE and DELETE; DDL leaves the previous value.
      const rowsWritten = kind === 'dml' ? this.db.getRowsModified() : 0;
      if (kind !== 'read' && (schemaBefore === undefined || this.schemaVersion() !== schemaBefore)) {
        this.group.push({ sql: text, params: [...params] });
        this.writes += 1;
      }
      return { columns, rows, rowsWritten };
    } catch (error) {
      // A statement that failed is compiled afresh next time.
      reusable = false;
      throw error;
    } finally {
      if (reusable && this.prepared.get(text) === statement) statement.reset();
      else {
        if (this.prepared.get(text) === statement) this.prepared.delete(text);
        statement.free();
      }
    }
  }

  private statement(text: string): SqlJsStatement {
    const cached = this.prepared.get(text);
    if (cached) return cached;
    const statement = this.db.prepare(text);
    // DDL changes what compiled statements mean; only plain DML and reads are kept.
    if (/^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE)\b/i.test(text)) {
      if (this.prepared.size >= 128) this.releasePrepared();
      this.prepared.set(text, statement);
    }
    return statement;
  }

  private releasePrepared(): void {
    for (const statement of this.prepared.values()) statement.free();
    this.prepared.clear();
  }

  /**
   * Runs `fn` atomically: its statements all apply or, when it throws, none do (in memory and in
   * the journal), as Durable Objects' `transactionSync`.
   */
  transactionSync<T>(fn: () => T): T {
    this.assertUsable();
    const mark = this.group.length;
    // One name for every level: SQLite's ROLLBACK TO and RELEASE act on the newest savepoint of
    // that name, the one this call opened, so the three statements are compiled once, not per call.
    this.runPrepared('SAVEPOINT hb_tx');
    try {
      const result = fn();
      this.runPrepared('RELEASE hb_tx');
      return result;
    } catch (error) {
      this.runPrepared('ROLLBACK TO hb_tx');
      this.runPrepared('RELEASE hb_tx');
      this.group.length = mark;
      throw error;
    }
  }

  /** The schema's version (SQLite's `schema_version`): it moves with every change of the schema. */
  private schemaVersion(): number {
    return this.pragmaNumber(SCHEMA_VERSION);
  }

  /** The number a reading PRAGMA answers, through a statement compiled once. */
  private pragmaNumber(text: string): number {
    const statement = this.bookkeeping(text);
    try {
      return statement.step() ? Number(statement.get()[0]) : 0;
    } finally {
      statement.reset();
    }
  }

  /** Runs a statement of the database's own bookkeeping, compiled once (until the next export). */
  private runPrepared(text: string): void {
    this.bookkeeping(text).run();
  }

  /** A statement of the database's own bookkeeping, compiled once (until the next export). */
  private bookkeeping(text: string): SqlJsStatement {
    let statement = this.prepared.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.prepared.set(text, statement);
    }
    return statement;
  }

  /**
   * The async form of `transactionSync` (`storage.transaction()`): the savepoint stays open across
   * the closure's awaits; a throw or `rollback()` undoes its statements. The caller keeps other
   * events out meanwhile (the instance's input gate).
   */
  async transactionAsync<T>(fn: (rollback: () => void) => Promise<T>): Promise<T> {
    this.assertUsable();
    const mark = this.group.length;
    const name = `hb_atx_${mark}_${this.seq}_${this.writes}`;
    this.db.run(`SAVEPOINT ${name}`);
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const outer = this.openTransaction;
    this.openTransaction = outer ? outer.then(() => ended) : ended;
    let rolledBack = false;
    const undo = (): void => {
      this.db.run(`ROLLBACK TO ${name}`);
      this.db.run(`RELEASE ${name}`);
      this.group.length = mark;
    };
    try {
      const result = await fn(() => (rolledBack = true));
      if (rolledBack) undo();
      else this.db.run(`RELEASE ${name}`);
      return result;
    } catch (error) {
      undo();
      throw error;
    } finally {
      if (!outer) this.openTransaction = undefined;
      end();
    }
  }

  /** An async transaction in progress: its statements are not journaled until it ends. */
  private openTransaction: Promise<void> | undefined;

  /** Ends the current write group, journals it, and resolves once it is durable. */
  commit(): Promise<void> {
    this.assertUsable();
    if (this.openTransaction) return this.openTransaction.then(() => this.commit());
    this.closeGroup();
    const covered = this.writes;
    return this.journal.flush().then(
      () => {
        this.durableWrites = Math.max(this.durableWrites, covered);
        this.maybeSnapshot();
      },
      (error: unknown) => {
        // The disk refused the write: the memory image is ahead of the disk, so the instance
        // must not answer anything more until it is reopened from what is durable.
        this.broken ??= new StorageWriteError(error);
        throw this.broken;
      },
    );
  }

  /**
   * Sets SQLite's page cache to `kib` (sqlHeaps.ts shares a heap's budget this way); kept across
   * snapshots. Not journaled: it is how this process holds the database, not part of it. Ignored
   * once closed.
   */
  setCacheSize(kib: number): void {
    if (this.closed || !(kib > 0)) return;
    this.cacheKiB = Math.round(kib);
    this.db.run(`PRAGMA cache_size = -${this.cacheKiB}`);
  }

  /**
   * What the database holds in memory, in bytes: its file, which sql.js keeps in memory whole (with
   * at most 1/8 of slack, sqljs.ts), and its page cache, which holds at most the file's pages up to
   * its size (`cache_size`, SQLite's default about 2 MiB). Measured again only after new writes.
   */
  memoryBytes(): number {
    if (this.closed) return 0;
    if (this.sizedAtWrite !== this.writes) {
      // Compiled once: measured after every write group, compiling them each time showed in serve's
      // profile under the receiver's load (docs/performance.md, "The agent's storage").
      this.fileBytes = this.pragmaNumber(PAGE_COUNT) * this.pragmaNumber(PAGE_SIZE);
      this.sizedAtWrite = this.writes;
    }
    return this.fileBytes + Math.min(this.fileBytes, (this.cacheKiB ?? DEFAULT_CACHE_KIB) * 1024);
  }

  /**
   * Whether a snapshot at close makes the next open cheaper than it costs: an open replays the
   * journal statement by statement, slower than loading a snapshot, and writing one costs more
   * than either (docs/performance.md, "A wake"); a journal small beside the snapshot (a quarter of
   * it) replays in less.
   */
  get snapshotPaysOff(): boolean {
    return this.snapshotBytes === 0 ? this.journal.size > 0 : this.journal.size * 4 > this.snapshotBytes;
  }

  /** Write statements executed so far; output produced now must wait until this many are durable. */
  get writeCount(): number {
    return this.writes;
  }

  /** Write statements known to be on disk. */
  get durableWriteCount(): number {
    return this.durableWrites;
  }

  private closeGroup(): void {
    if (this.group.length === 0) return;
    this.seq += 1;
    this.journal.append({ seq: this.seq, statements: this.group });
    this.group = [];
  }

  private maybeSnapshot(): void {
    if (this.journal.size >= this.snapshotLimit() && !this.snapshotting) void this.snapshot().catch(() => undefined);
  }

  /**
   * When the journal is due a snapshot: at twice the database's size (at least 256 KiB), at most
   * `snapshotAfterBytes`. A thousand small instances then keep a few hundred KiB of journal each
   * instead of 4 MiB, and reopening replays little.
   */
  private snapshotLimit(): number {
    return Math.min(this.snapshotAfterBytes, Math.max(MIN_SNAPSHOT_LIMIT, 2 * this.snapshotBytes));
  }

  /** Writes a snapshot of everything in memory and drops the journal generations it covers. */
  snapshot(): Promise<void> {
    this.assertUsable();
    if (this.snapshotting) return this.snapshotting.then(() => this.snapshot());
    this.closeGroup();
    this.db.run(`INSERT OR REPLACE INTO ${META} (k, v) VALUES ('seq', ?)`, [this.seq]);
    // export() closes and reopens the sql.js database: nothing may be prepared across it, and the
    // pragmas are back to their defaults afterwards.
    this.releasePrepared();
    const image = this.db.export();
    this.snapshotBytes = image.byteLength;
    tune(this.db, this.cacheKiB);
    const previous = this.journal;
    this.generation += 1;
    this.journal = new JournalWriter(path.join(this.dir, journalName(this.generation)), undefined, this.shared);
    const covered = this.generation;
    this.snapshotting = (async () => {
      await previous.close();
      await writeSnapshot(path.join(this.dir, SNAPSHOT), image);
      for (const generation of journalGenerations(this.dir)) {
        if (generation < covered) await fs.promises.unlink(path.join(this.dir, journalName(generation)));
      }
      await syncDirectory(this.dir);
    })().finally(() => (this.snapshotting = undefined));
    return this.snapshotting;
  }

  /**
   * A copy of the database as it stands in memory now, writes not yet durable included, for
   * readers that must never touch the live connection (the admin API's queries run on it in a
   * worker thread). It is consistent: statements run synchronously and no transaction stays open
   * between them, so the copy holds whole write groups only.
   *
   * Taken with `export()`, the snapshot's path, not by reading the file from sql.js's in-memory
   * file system: sql.js does not expose that file system, and the file is whole only between
   * transactions, which a raw read cannot check (SQLite's backup API can). The handling is the
   * snapshot's too: sql.js 1.16 exports through the backup API and keeps the connection, its
   * prepared statements and pragmas, but older releases closed and reopened it; releasing the
   * statements and tuning again keeps this correct either way, at the cost of compiling a few
   * statements afresh.
   */
  image(): Uint8Array {
    this.assertUsable();
    this.releasePrepared();
    const image = this.db.export();
    tune(this.db, this.cacheKiB);
    return image;
  }

  /**
   * Closes without journaling the writes not yet committed: they are lost, as workerd rolls a
   * reset object back to its last committed state.
   */
  async discard(): Promise<void> {
    this.group = [];
    await this.snapshotting?.catch(() => undefined);
    await this.journal.close().catch(() => undefined);
    this.releasePrepared();
    this.closed = true;
    this.db.close();
  }

  async close({ snapshot = true } = {}): Promise<void> {
    if (!this.broken) {
      await this.commit();
      await this.snapshotting;
      if (snapshot && this.journal.size > 0) await this.snapshot();
    }
    await this.journal.close().catch(() => undefined);
    this.releasePrepared();
    this.closed = true;
    this.db.close();
  }

  private assertUsable(): void {
    if (this.broken) throw this.broken;
  }
}
