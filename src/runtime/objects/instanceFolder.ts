/**
 * One instance's folder and the database in it: opening it at a wake (in a sql.js heap when the
 * platform has heaps, with the real name kept beside the encoded folder name), closing it at an
 * eviction, a reset or a shutdown, and the alarm marker that lets a restart find the instances
 * with an alarm. Opening waits for every close still running: a closing snapshot deletes the
 * journal generations it covers, and a database opened before it finishes would append to a
 * generation about to be deleted (docs/runtime.md, "Durability").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writePrivate } from '../../core/privateFiles';
import { DurableDatabase } from '../storage/durableDatabase';
import type { Platform } from '../platform';

/** A file beside an instance's data saying it has an alarm: a restart wakes the instance for it. */
export const ALARM_MARKER = 'alarm';

/** An open database and the heap lease it holds. */
export interface OpenDatabase {
  readonly db: DurableDatabase;
  /** Lets go of the database's heap, once it is closed. */
  readonly release: (() => void) | undefined;
}

export class InstanceFolder {
  /** Closes still running: opening waits for them, so two databases never share the folder. */
  private closing: Promise<unknown> | undefined;

  constructor(
    private readonly platform: Platform,
    /** The instance's name, as its host knows it. */
    private readonly name: string,
    readonly directory: string,
  ) {}

  /** Opens the database (snapshot + journal) once no close is running; `created` on the instance's first wake. */
  async open(): Promise<OpenDatabase & { readonly created: boolean }> {
    while (this.closing) await this.closing;
    // With heaps (sqlHeaps.ts), the database lives in a heap that is dropped once its last database closes.
    const lease = this.platform.heaps?.acquire();
    let db: DurableDatabase;
    try {
      db = await DurableDatabase.open({
        sql: lease ? await lease.sql : this.platform.sql,
        dir: this.directory,
        snapshotAfterBytes: this.platform.limits.snapshotAfterBytes,
        log: this.platform.log,
      });
    } catch (error) {
      lease?.release();
      throw error;
    }
    // The heap shares a page-cache budget among its databases (pageCache.ts).
    lease?.followCacheSize((kib) => db.setCacheSize(kib));
    // The folder name is an encoding (hashed for long names): keep the real name beside it.
    const nameFile = path.join(this.directory, 'name');
    const created = !fs.existsSync(nameFile);
    if (created) writePrivate(nameFile, this.name);
    if (db.droppedBytes > 0) this.platform.logger.warn(`${this.name}: dropped a torn journal tail of ${db.droppedBytes} bytes (never acknowledged)`);
    return { db, release: lease?.release, created };
  }

  /**
   * Closes a database no longer live: with a snapshot, unless `snapshot: false` (the journal is
   * durable and is replayed at the next wake), or dropping what it did not commit (`discard`, a
   * reset object). Failures are logged: its journal holds what is durable.
   */
  close(open: Promise<OpenDatabase>, options: { snapshot: boolean; discard?: boolean }): Promise<void> {
    const closed = open
      .then(({ db, release }) => (options.discard ? db.discard() : db.close(options)).finally(() => release?.()))
      .catch((error: unknown) => this.platform.logger.error(`${this.name}: closing: ${(error as Error)?.message ?? String(error)}`));
    const all = Promise.all([this.closing, closed]);
    this.closing = all;
    void all.then(() => {
      if (this.closing === all) this.closing = undefined;
    });
    return closed;
  }

  /** Resolves once every close started so far has finished. */
  closed(): Promise<unknown> {
    return Promise.resolve(this.closing);
  }

  /**
   * The instance set an alarm (or deleted it: null, which leaves the marker to the next wake). The
   * marker is written before the row can be durable; a stale one only costs a wake.
   */
  alarmSet(time: number | null): void {
    if (time !== null && !fs.existsSync(path.join(this.directory, ALARM_MARKER))) writePrivate(path.join(this.directory, ALARM_MARKER), '');
  }

  /** A wake found no alarm stored: a restart need not wake the instance. */
  noAlarm(): void {
    fs.rmSync(path.join(this.directory, ALARM_MARKER), { force: true });
  }
}
