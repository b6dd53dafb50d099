// The durable floor: the fetch-API floor's steps plus the storage any durable receiver of these
// webhooks does on sql.js here, and nothing of Hookbench's runtime. Per entity, an in-memory sql.js
// database (the runtime's pragmas) takes the built-in worker's statements for one delivery — the
// insert with its dedup, the two retentions by count and the one by age, the state-history row and
// the state row — through cached prepared statements in one transaction; the statements and their
// parameters are appended to the entity's journal file as a JSON line (a write, no sync), and to
// one shared log for all entities: the answer waits for that log's fdatasync, one for everything
// every entity wrote in the same turn and while the previous sync ran (a group commit across
// entities, as serve's shared log does: docs/runtime.md, "Durability"). What it leaves out is what
// serve adds: the Agents SDK emulation (routing, the host, the output gate, state frames), the
// deliveries log, the admin feed, the log's framing and checkpoints, journal rotation and snapshots.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { AGENT_STATE_DDL, AGENT_STATE_UPSERT, EVENTS_DDL, EVENTS_INDEX_DDL, EVENTS_INSERT } from '../src/core/contract/tables';
import { STATE_HISTORY_DDL, STATE_HISTORY_INSERT, STATE_HISTORY_RETENTION } from '../src/core/contract/timeline';
import { loadSqlJs } from '../src/runtime/storage/sqljs';

const fdatasync = promisify(fs.fdatasync);

const SCHEMA = [EVENTS_DDL, EVENTS_INDEX_DDL, STATE_HISTORY_DDL, AGENT_STATE_DDL];

const STATEMENTS = {
  insert: EVENTS_INSERT,
  keepCount: 'DELETE FROM events WHERE rowid IN (SELECT rowid FROM events ORDER BY timestamp DESC LIMIT -1 OFFSET ?)',
  keepHistory: STATE_HISTORY_RETENTION,
  keepDays: 'DELETE FROM events WHERE timestamp < ?',
  history: STATE_HISTORY_INSERT,
  state: AGENT_STATE_UPSERT,
} as const;

type Name = keyof typeof STATEMENTS;

interface EntityState {
  total: number;
  byType: Record<string, number>;
}

class Entity {
  private readonly prepared: Record<Name, Statement>;
  private readonly fd: number;
  private pending: string[] = [];
  state: EntityState = { total: 0, byType: {} };

  constructor(
    private readonly db: Database,
    file: string,
    private readonly log: SharedLog,
  ) {
    for (const pragma of ['locking_mode = EXCLUSIVE', 'journal_mode = MEMORY', 'temp_store = MEMORY']) db.run(`PRAGMA ${pragma}`);
    for (const ddl of SCHEMA) db.run(ddl);
    this.prepared = Object.fromEntries(Object.entries(STATEMENTS).map(([name, sql]) => [name, db.prepare(sql)])) as Record<Name, Statement>;
    this.fd = fs.openSync(file, 'a');
  }

  /** Runs one delivery's statements in a transaction and journals them; false for a duplicate. */
  store(event: { id: string; type: string; title: string; payload: string; timestamp: string }): boolean {
    const run: [Name, (string | number | null)[]][] = [];
    const exec = (name: Name, params: (string | number | null)[]) => {
      this.prepared[name].run(params);
      run.push([name, params]);
    };
    this.db.run('BEGIN');
    try {
      exec('insert', [event.id, event.type, null, event.title, null, null, 'octocat', event.payload, event.timestamp]);
      if (this.db.getRowsModified() === 0) {
        this.db.run('ROLLBACK');
        return false;
      }
      exec('keepCount', [100]);
      exec('keepHistory', [99]);
      exec('keepDays', [new Date(Date.now() - 30 * 86_400_000).toISOString()]);
      const before = this.state;
      const after = { total: before.total + 1, byType: { ...before.byType, [event.type]: (before.byType[event.type] ?? 0) + 1 } };
      exec('history', [event.id, event.type, event.title, event.timestamp, JSON.stringify(before), JSON.stringify(after)]);
      exec('state', ['STATE', JSON.stringify(after)]);
      this.db.run('COMMIT');
      this.state = after;
    } catch (error) {
      this.db.run('ROLLBACK');
      throw error;
    }
    this.pending.push(`${JSON.stringify(run)}\n`);
    return true;
  }

  /** Resolves once everything this entity stored so far is on disk. */
  durable(): Promise<void> {
    return this.log.durable(this);
  }

  /** Writes what was stored since the last call to the entity's journal (no sync) and returns it. */
  drain(): string {
    const batch = this.pending.splice(0).join('');
    if (batch) fs.writeSync(this.fd, batch);
    return batch;
  }
}

/** One shared log: a write + fdatasync for everything every entity stored in the turn. */
class SharedLog {
  private readonly fd: number;
  private readonly dirty = new Set<Entity>();
  private waiting: (() => void)[] = [];
  private flushing = false;

  constructor(file: string) {
    this.fd = fs.openSync(file, 'a');
  }

  /** Resolves once everything `entity` stored so far is on disk. */
  durable(entity: Entity): Promise<void> {
    this.dirty.add(entity);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = [...this.dirty].map((entity) => entity.drain()).join('');
      this.dirty.clear();
      const done = this.waiting.splice(0);
      if (batch) fs.writeSync(this.fd, batch);
      await fdatasync(this.fd);
      for (const resolve of done) resolve();
    }
    this.flushing = false;
  }
}

/** The entities' storage in a fresh temp folder. */
export class DurableFloorStore {
  private readonly entities = new Map<string, Entity>();
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-floor-'));
  private readonly log = new SharedLog(path.join(this.dir, 'shared.log'));

  private constructor(private readonly sql: SqlJsStatic) {}

  static async open(): Promise<DurableFloorStore> {
    return new DurableFloorStore(await loadSqlJs());
  }

  entity(name: string): Entity {
    let entity = this.entities.get(name);
    if (!entity) {
      entity = new Entity(new this.sql.Database(), path.join(this.dir, `${this.entities.size}.journal`), this.log);
      this.entities.set(name, entity);
    }
    return entity;
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
