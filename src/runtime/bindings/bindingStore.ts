/**
 * The one database behind a binding (a KV namespace, a D1 database, an R2 bucket's index, the
 * queues' backlog): a DurableDatabase opened on first use, so a binding the worker never touches
 * costs no file. Writes are acknowledged only after `commit()` resolves, as the output gate does
 * for Durable Objects: nothing a worker was told is stored is lost on a crash.
 */
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { DurableDatabase } from '../storage/durableDatabase';
import { encodeName } from '../storage/names';
import type { SharedLog } from '../storage/sharedLog';

export interface BindingStoreOptions {
  readonly sql: SqlJsStatic;
  /** The binding's own folder. */
  readonly dir: string;
  /** Statements that create the binding's tables (idempotent: IF NOT EXISTS). */
  readonly schema: readonly string[];
  /** Called once a write that changed something is durable (not for reads, nor for writes that failed). */
  readonly written?: () => void;
  /** The data folder's shared log (storage/sharedLog.ts); without it the journal syncs itself. */
  readonly log?: SharedLog;
}

/** The folder of one binding's data: `<data>/_bindings/<kind>/<encoded id>`, apart from instances. */
export function bindingDir(dataDir: string, kind: 'kv' | 'd1' | 'r2' | 'queues', id: string): string {
  return path.join(dataDir, '_bindings', kind, encodeName(id));
}

export class BindingStore {
  private opening: Promise<DurableDatabase> | undefined;

  constructor(private readonly options: BindingStoreOptions) {}

  get dir(): string {
    return this.options.dir;
  }

  /** The open database (opened, and its schema created, on first use). */
  database(): Promise<DurableDatabase> {
    this.opening ??= (async () => {
      const db = await DurableDatabase.open({ sql: this.options.sql, dir: this.options.dir, log: this.options.log });
      for (const statement of this.options.schema) db.exec(statement);
      await db.commit();
      return db;
    })();
    // A failed open is tried again on the next use rather than remembered forever.
    this.opening.catch(() => (this.opening = undefined));
    return this.opening;
  }

  /** Runs `fn` on the database and resolves once what it wrote is durable. */
  async write<T>(fn: (db: DurableDatabase) => T): Promise<T> {
    const db = await this.database();
    const before = db.writeCount;
    const result = db.transactionSync(() => fn(db));
    await db.commit();
    if (db.writeCount > before) this.options.written?.();
    return result;
  }

  async read<T>(fn: (db: DurableDatabase) => T): Promise<T> {
    return fn(await this.database());
  }

  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    if (!opening) return;
    const db = await opening.catch(() => undefined);
    await db?.close();
  }
}
