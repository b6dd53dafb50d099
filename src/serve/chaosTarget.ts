/**
 * The receiver `hookbench chaos` runs each of its runs on (docs/chaos.md, "How a run goes"): the
 * serve `hookbench serve` starts (startServe.ts), in-process, without the render emulator, on port 0 and a fresh data
 * folder of its own, the worker bundled once for all runs; and what a run left, read from the
 * runtime once every instance is quiet: each agent's state row, its `ctx.storage` keys and the
 * rows of its own tables.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { deserialize } from 'node:v8';
import * as esbuild from 'esbuild';
import { AGENT_STATE_ROW_ID, AGENT_STATE_SELECT, AGENT_STATE_TABLE, stateFromText } from '../core/contract/tables';
import { TABLE_SCHEMA_SQL, quoteIdentifier, tablesFrom } from '../core/contract/tableSchema';
import { STATE_HISTORY_TABLE } from '../core/contract/timeline';
import type { ChaosTarget, RunTarget } from '../core/chaos/runner';
import type { EntityData, Snapshot, TableData } from '../core/chaos/snapshot';
import type { Logger } from '../core/log';
import { bundleWorker } from '../runtime/worker/loader';
import { loadSqlJs } from '../runtime/storage/sqljs';
import type { DurableDatabase } from '../runtime/storage/durableDatabase';
import { withDeadline } from '../core/timers';
import type { RunningServer } from './server';
import { startServe } from './startServe';
import { buildSettings, type WorkerHostOptions } from './workerHost';

export interface ChaosTargetOptions {
  readonly logger: Logger;
  /** The worker as `serve` would run it (never watched). */
  readonly worker: Omit<WorkerHostOptions, 'watch'>;
  /** `built-in` or the worker's entry, for the report. */
  readonly description: string;
  /** A folder of the caller's: the bundle and each run's data folder go below it. */
  readonly scratch: string;
}

/** How long a snapshot waits for instances still busy (a handler past the provider's timeout). */
const QUIET_DEADLINE_MS = 30_000;

/** The chaos target: bundles the worker once, then starts a receiver on a fresh data folder for each run. */
export async function chaosTarget(options: ChaosTargetOptions): Promise<ChaosTarget> {
  let prebuilt = options.worker.prebuilt;
  if (!prebuilt) {
    prebuilt = path.join(options.scratch, 'worker.mjs');
    fs.writeFileSync(prebuilt, (await bundleWorker(esbuild, options.worker.entry, buildSettings(options.worker))).code);
  }
  const worker: WorkerHostOptions = { ...options.worker, prebuilt, watch: false };
  // One compiled sql.js for every run.
  const sql = await loadSqlJs();
  let runs = 0;
  return {
    worker: options.description,
    async open(): Promise<RunTarget> {
      const dataDir = path.join(options.scratch, `run-${++runs}`);
      fs.mkdirSync(dataDir);
      // Never idle-evicted during a run: eviction is not what chaos perturbs.
      const server = await startServe({
        host: '127.0.0.1',
        port: 0,
        dataDir,
        worker,
        logger: options.logger,
        sharedSql: sql,
        limits: { idleMs: Number.POSITIVE_INFINITY },
      });
      return {
        url: server.url,
        snapshot: () => readSnapshot(server),
        async close() {
          await server.stop();
          server.platform.instanceEvents.dispose();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  };
}

async function readSnapshot(server: RunningServer): Promise<Snapshot> {
  const runtime = await server.worker.runtime();
  const snapshot: Record<string, EntityData> = {};
  for (const namespace of runtime.namespaces) {
    for (const name of namespace.instanceNames().sort()) {
      const host = namespace.host(name);
      await withDeadline(host.whenQuiet(), QUIET_DEADLINE_MS);
      snapshot[`${namespace.binding}/${name}`] = await host.inspect((db) => readEntity(db));
    }
  }
  return snapshot;
}

const tableExists = (db: DurableDatabase, name: string) => db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).rows.length > 0;

/** The Agents SDK's tables (`cf_agents_*`) and the timeline's are not the worker's own data. */
const isOwnTable = (name: string) => !name.startsWith('cf_') && name !== STATE_HISTORY_TABLE;

function readEntity(db: DurableDatabase): EntityData {
  const stateRow = tableExists(db, AGENT_STATE_TABLE) ? db.exec(AGENT_STATE_SELECT, [AGENT_STATE_ROW_ID]).rows[0] : undefined;
  const storage = tableExists(db, '_cf_KV')
    ? Object.fromEntries(
        db.exec('SELECT key, value FROM _cf_KV ORDER BY key').rows.map(([key, value]) => [String(key), plain(deserialize(value as Uint8Array))]),
      )
    : {};
  const tables: Record<string, TableData> = {};
  for (const { name, columns } of tablesFrom(db.exec(TABLE_SCHEMA_SQL))) {
    if (!isOwnTable(name)) continue;
    const keys = columns.filter((c) => c.pk > 0);
    // SQLite's rowid under another name: numbered in the order rows arrive.
    const rowIds = keys.length === 1 && keys[0]!.type.toUpperCase() === 'INTEGER' ? [keys[0]!.name] : [];
    const result = db.exec(`SELECT * FROM ${quoteIdentifier(name)}`);
    tables[name] = { columns: result.columns, rowIds, rows: result.rows.map((row) => row.map(plain)) };
  }
  return { state: stateRow?.[0] === undefined || stateRow[0] === null ? undefined : stateFromText(String(stateRow[0])), storage, tables };
}

/** A stored value as JSON can show and compare it. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString('base64') };
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Map) return { Map: [...value].map(([k, v]) => [plain(k), plain(v)]) };
  if (value instanceof Set) return { Set: [...value].map(plain) };
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
