/**
 * The admin API's query worker, bundled as dist/adminQueryWorker.js (adminQuery.ts starts it).
 * It loads its own sql.js, and for each job opens the database copy it is sent and runs exactly
 * one statement on it:
 * - a query (`read`) with the copy made read-only, answering its columns and rows;
 * - a console write (`check`) as it would run on the instance, comparing what the runtime relies
 *   on before and after (executeGuard.ts), so the serve process applies to the live database only a
 *   statement that finished within the time limit and left all of that as it was.
 * The serve process terminates it when a statement runs past the time limit.
 */
import { parentPort } from 'node:worker_threads';
import type { Database, SqlJsStatic } from 'sql.js';
import type { SqlValue } from '../../runtime/storage/journal';
import { loadSqlJs } from '../../runtime/storage/sqljs';
import type { QueryJob, WorkerReply } from './adminQuery';
import { changedGuard, readGuard } from './executeGuard';

const port = parentPort;
if (!port) throw new Error('adminQueryWorker runs as a worker thread');

void loadSqlJs().then((sql) => {
  port.on('message', (job: QueryJob) => port.postMessage(answer(sql, job) satisfies WorkerReply));
  port.postMessage({ type: 'ready' } satisfies WorkerReply);
});

function answer(sql: SqlJsStatic, job: QueryJob): WorkerReply {
  let db: Database | undefined;
  try {
    db = new sql.Database(job.image);
    return job.mode === 'check' ? check(db, job) : run(db, job);
  } catch (error) {
    return { type: 'error', message: (error as Error).message ?? String(error), refused: false };
  } finally {
    // Closing frees the copy's pages and its in-memory file, so a warm worker does not grow.
    db?.close();
  }
}

function run(db: Database, job: QueryJob): WorkerReply {
  db.run('PRAGMA query_only = 1');
  const statements = db.iterateStatements(job.sql);
  const first = statements.next();
  if (first.done) return { type: 'error', message: 'there is no statement to run', refused: true };
  const statement = first.value;
  const rows: SqlValue[][] = [];
  let truncated = false;
  let columns: string[];
  try {
    statement.bind(job.params as never);
    columns = statement.getColumnNames();
    while (statement.step()) {
      if (rows.length === job.maxRows) {
        truncated = true;
        break;
      }
      rows.push(statement.get() as SqlValue[]);
    }
  } finally {
    statement.free();
  }
  // The statement ran before anything after it is compiled: SQLite applies some pragmas while it
  // compiles them, and this copy is thrown away either way.
  if (!statements.next().done) return { type: 'error', message: 'exactly one statement is allowed', refused: true };
  // The serve process only sends statements that read; one that still changed the copy, or made
  // it writable, is refused rather than answered.
  const changes = Number(db.exec('SELECT total_changes()')[0]?.values[0]?.[0]) + db.getRowsModified();
  const queryOnly = db.exec('PRAGMA query_only')[0]?.values[0]?.[0];
  if (changes !== 0 || queryOnly !== 1) {
    return { type: 'error', message: 'read-only: the statement changed the database copy it ran on, so its result is withheld', refused: true };
  }
  return { type: 'result', columns, rows, truncated };
}

/** Runs a console write on the copy to the end (its rows are not kept: the live run answers them). */
function check(db: Database, job: QueryJob): WorkerReply {
  const before = readGuard(db);
  const statements = db.iterateStatements(job.sql);
  const first = statements.next();
  if (first.done) return { type: 'error', message: 'there is no statement to run', refused: true };
  const statement = first.value;
  try {
    statement.bind(job.params as never);
    while (statement.step());
  } finally {
    statement.free();
  }
  if (!statements.next().done) return { type: 'error', message: 'exactly one statement is allowed', refused: true };
  const changed = changedGuard(before, readGuard(db));
  if (changed)
    return { type: 'error', message: `refused: the statement changed ${changed} when tried on a copy of the database, so it was not applied`, refused: true };
  return { type: 'checked' };
}
