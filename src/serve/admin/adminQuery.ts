/**
 * The admin API's read-only queries, and the trial run of its console writes, off the serve
 * process's main thread. Each runs on a copy of the instance's database in a worker thread
 * (adminQueryWorker.ts), and the worker is
 * terminated when the time limit passes: sql.js exposes no sqlite3_interrupt and no progress
 * handler, so a statement cannot be stopped from inside, and on the main thread a recursive query
 * held every webhook for as long as it ran. One warm worker serves the queries in turn; one that
 * was terminated or crashed is replaced when the next query comes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SqlValue } from '../../runtime/storage/journal';

import type { QueryParam } from '../../core/contract/admin';

/**
 * What the serve process sends the worker: one statement and the image to run it on, either as a
 * read-only query (`read`) or as a console write tried before it is applied (`check`).
 */
export interface QueryJob {
  readonly mode: 'read' | 'check';
  readonly image: Uint8Array;
  readonly sql: string;
  readonly params: readonly QueryParam[];
  readonly maxRows: number;
}

/** What the worker answers: `ready` once after sql.js has loaded, then one reply per job. */
export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'result'; readonly columns: string[]; readonly rows: SqlValue[][]; readonly truncated: boolean }
  /** A console write ran to its end on the copy and left what the runtime relies on as it was. */
  | { readonly type: 'checked' }
  /** `refused`: the statement changed the copy, so its rows are withheld; otherwise SQLite's error. */
  | { readonly type: 'error'; readonly message: string; readonly refused: boolean };

export interface QueryResult {
  readonly columns: string[];
  readonly rows: SqlValue[][];
  /** More rows than `maxRows`: the rest were not read. */
  readonly truncated: boolean;
}

export interface QueryOptions {
  /** The worker script; by default adminQueryWorker.js beside the running bundle. */
  readonly workerFile?: string;
  /** The longest a query may run, in ms (default 2000); a request may ask for less. */
  readonly timeoutMs?: number;
  /** Rows answered at most (default 10,000). */
  readonly maxRows?: number;
  /** Queries that may wait behind the running one (default 4); more are answered 503. */
  readonly maxWaiting?: number;
  /** The worker's JavaScript heap in MiB (default 256); a query needing more is stopped. */
  readonly memoryMb?: number;
}

export interface QueryRequest {
  /** Takes the copy to run on; called when the query's turn comes, so waiting holds no copy. */
  readonly image: () => Promise<Uint8Array>;
  readonly sql: string;
  readonly params: readonly QueryParam[];
  /** A shorter time limit for this query; never longer than the runner's. */
  readonly timeoutMs?: number;
}

/** A query the caller must change: its status is the HTTP answer (400, 408 or 503). */
export class QueryError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Far longer than loading sql.js takes (docs/performance.md, "Start"): a worker not ready after this is broken, not slow. */
const STARTUP_MS = 10_000;

export class QueryRunner {
  private readonly limits: Required<Omit<QueryOptions, 'workerFile'>>;
  private warm: { readonly worker: Worker; readonly ready: Promise<Worker> } | undefined;
  /** Settles when the queries queued so far have; the next one runs after it. */
  private line: Promise<unknown> = Promise.resolve();
  /** Queries running or waiting. */
  private queued = 0;
  private closed = false;

  constructor(private readonly options: QueryOptions = {}) {
    this.limits = {
      timeoutMs: options.timeoutMs ?? 2000,
      maxRows: options.maxRows ?? 10_000,
      maxWaiting: options.maxWaiting ?? 4,
      memoryMb: options.memoryMb ?? 256,
    };
  }

  /** Runs one read-only statement on a copy of the database, after the queries before it. */
  run(request: QueryRequest): Promise<QueryResult> {
    return this.enqueue(request, 'read') as Promise<QueryResult>;
  }

  /**
   * Tries a console write on a copy of the database, in turn with the queries, under the same
   * time limit: it resolves when the statement ran to its end there and left what the runtime
   * relies on as it was (executeGuard.ts), and rejects with the 400 or 408 to answer otherwise.
   */
  async check(request: QueryRequest): Promise<void> {
    await this.enqueue(request, 'check');
  }

  private enqueue(request: QueryRequest, mode: QueryJob['mode']): Promise<QueryResult | undefined> {
    if (this.closed) return Promise.reject(new QueryError(503, 'the server is stopping'));
    if (this.queued > this.limits.maxWaiting)
      return Promise.reject(new QueryError(503, `${this.queued} admin queries are running or waiting; try again once they are answered`));
    this.queued++;
    const turn = this.line.then(() => this.runNow(request, mode)).finally(() => this.queued--);
    this.line = turn.catch(() => undefined);
    return turn;
  }

  /** Terminates the worker; queries still waiting are answered 503. */
  close(): void {
    this.closed = true;
    if (this.warm) this.discard(this.warm.worker);
  }

  private async runNow({ image, sql, params, timeoutMs }: QueryRequest, mode: QueryJob['mode']): Promise<QueryResult | undefined> {
    if (this.closed) throw new QueryError(503, 'the server is stopping');
    const limit = Math.min(timeoutMs ?? this.limits.timeoutMs, this.limits.timeoutMs);
    const copy = await image();
    const worker = await this.ready();
    return new Promise<QueryResult | undefined>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      };
      const timer = setTimeout(() => {
        settle();
        this.discard(worker);
        const stopped = mode === 'read' ? `query stopped after ${limit} ms` : `statement stopped after ${limit} ms on a copy of the database, and not applied`;
        reject(new QueryError(408, `${stopped}: it ran past the admin API's time limit`));
      }, limit);
      const onMessage = (reply: WorkerReply) => {
        settle();
        if (reply.type === 'result') resolve({ columns: reply.columns, rows: reply.rows, truncated: reply.truncated });
        else if (reply.type === 'checked') resolve(undefined);
        else if (reply.type === 'error') reject(new QueryError(400, reply.refused ? reply.message : `SQL error: ${reply.message}`));
        else reject(new Error(`the query worker answered ${reply.type} to a query`));
      };
      const onError = (error: Error) => {
        settle();
        reject(this.stoppedBy(error));
      };
      const onExit = (code: number) => {
        settle();
        reject(this.closed ? new QueryError(503, 'the server is stopping') : new Error(`the query worker exited with code ${code}`));
      };
      worker.on('message', onMessage).once('error', onError).once('exit', onExit);
      // The copy is ours alone (DurableDatabase.image()): hand its memory over instead of cloning it.
      worker.postMessage({ mode, image: copy, sql, params, maxRows: this.limits.maxRows } satisfies QueryJob, [copy.buffer as ArrayBuffer]);
    });
  }

  private stoppedBy(error: Error): Error {
    if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new QueryError(400, `query stopped: it needed more than the query worker's ${this.limits.memoryMb} MiB of memory`);
    }
    return error;
  }

  /** The warm worker, started now if there is none. */
  private ready(): Promise<Worker> {
    if (this.warm) return this.warm.ready;
    const worker = new Worker(this.options.workerFile ?? defaultWorkerFile(), {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: Math.min(32, this.limits.memoryMb), stackSizeMb: 4 },
    });
    // An idle worker never keeps the process alive, and its crash while idle is not the main thread's.
    worker.unref();
    worker.on('error', () => this.discard(worker)).on('exit', () => this.discard(worker));
    const ready = new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`the query worker was not ready after ${STARTUP_MS} ms`)), STARTUP_MS);
      const onMessage = (reply: WorkerReply) => reply.type === 'ready' && done();
      const onExit = (code: number) => done(new Error(`the query worker exited with code ${code} while starting`));
      const done = (error?: Error) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', done).off('exit', onExit);
        if (!error) return resolve(worker);
        this.discard(worker);
        reject(error);
      };
      worker.on('message', onMessage).on('error', done).on('exit', onExit);
    });
    this.warm = { worker, ready };
    return ready;
  }

  /** Terminates `worker`; the next query starts a fresh one. */
  private discard(worker: Worker): void {
    if (this.warm?.worker === worker) this.warm = undefined;
    void worker.terminate().catch(() => undefined);
  }
}

/**
 * adminQueryWorker.js beside the bundle that runs (dist/cli.js and dist/extension.js have it in
 * dist/). Test bundles live under out/ and use the project's dist/, which `node esbuild.js --tests`
 * builds in the same run.
 */
function defaultWorkerFile(): string {
  const name = 'adminQueryWorker.js';
  const beside = path.join(__dirname, name);
  if (fs.existsSync(beside)) return beside;
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', name);
  }
  return beside;
}
