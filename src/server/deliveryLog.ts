/**
 * The deliveries log: every request the receiver passes to the worker, accepted or rejected, with
 * its raw bytes, the response, timing, and what the worker said about it (provider, entity,
 * verification). Kept in its own durable database, bounded by count and by body size.
 */
import { randomUUID } from 'node:crypto';
import type { SqlJsStatic } from 'sql.js';
import { Emitter } from '../core/events';
import { DurableDatabase } from '../core/runtime/durableDatabase';

export interface DeliveryRecord {
  readonly id: string;
  readonly time: string;
  readonly method: string;
  readonly path: string;
  readonly requestHeaders: Record<string, string>;
  readonly requestBody: Buffer;
  readonly requestTruncated: boolean;
  readonly status: number;
  readonly responseHeaders: Record<string, string>;
  readonly responseBody: string;
  readonly durationMs: number;
  readonly provider: string | null;
  readonly entity: string | null;
  /** "valid", a failure reason with its message, or null when the worker said nothing. */
  readonly verification: string | null;
}

/** A delivery without its bodies, for lists and the live feed. */
export type DeliverySummary = Omit<DeliveryRecord, 'requestBody' | 'responseBody'> & { readonly requestBytes: number };

export interface DeliveryLogOptions {
  readonly sql: SqlJsStatic;
  readonly dir: string;
  /** Deliveries kept (default 1000). */
  readonly maxCount?: number;
  /** Request bytes kept per delivery (default 1 MiB); larger bodies are kept truncated and marked. */
  readonly maxBodyBytes?: number;
}

const COLUMNS = 'id, time, method, path, request_headers, request_body, request_truncated, request_bytes, status, response_headers, response_body, duration_ms, provider, entity, verification';

type Row = Record<string, string | number | Uint8Array | null>;

export class DeliveryLog {
  private readonly recorded = new Emitter<DeliverySummary>();
  readonly onDidRecord = this.recorded.event;
  private readonly maxCount: number;
  private readonly maxBodyBytes: number;

  private constructor(
    private readonly db: DurableDatabase,
    options: DeliveryLogOptions,
  ) {
    this.maxCount = options.maxCount ?? 1000;
    this.maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  }

  static async open(options: DeliveryLogOptions): Promise<DeliveryLog> {
    const db = await DurableDatabase.open({ sql: options.sql, dir: options.dir });
    db.exec(`CREATE TABLE IF NOT EXISTS deliveries (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, time TEXT NOT NULL, method TEXT NOT NULL,
      path TEXT NOT NULL, request_headers TEXT NOT NULL, request_body BLOB, request_truncated INTEGER NOT NULL,
      request_bytes INTEGER NOT NULL, status INTEGER NOT NULL, response_headers TEXT NOT NULL, response_body TEXT,
      duration_ms REAL NOT NULL, provider TEXT, entity TEXT, verification TEXT)`);
    await db.commit();
    return new DeliveryLog(db, options);
  }

  /** Records a delivery; it is on disk soon after (group commit), never holding up the response. */
  record(delivery: Omit<DeliveryRecord, 'id' | 'requestTruncated'>): DeliverySummary {
    const id = randomUUID();
    const truncated = delivery.requestBody.length > this.maxBodyBytes;
    const body = truncated ? delivery.requestBody.subarray(0, this.maxBodyBytes) : delivery.requestBody;
    this.db.exec(`INSERT INTO deliveries (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      id, delivery.time, delivery.method, delivery.path, JSON.stringify(delivery.requestHeaders), new Uint8Array(body),
      truncated ? 1 : 0, delivery.requestBody.length, delivery.status, JSON.stringify(delivery.responseHeaders),
      delivery.responseBody.slice(0, 64 * 1024), delivery.durationMs, delivery.provider, delivery.entity, delivery.verification,
    ]);
    this.db.exec('DELETE FROM deliveries WHERE seq <= (SELECT max(seq) FROM deliveries) - ?', [this.maxCount]);
    void this.db.commit().catch(() => undefined);
    const { requestBody: _b, responseBody: _r, ...rest } = delivery;
    const summary: DeliverySummary = { ...rest, id, requestTruncated: truncated, requestBytes: delivery.requestBody.length };
    this.recorded.fire(summary);
    return summary;
  }

  /** Newest first. */
  list(limit = 100): DeliverySummary[] {
    const rows = this.db.exec(`SELECT ${COLUMNS.replace(', request_body', '').replace(', response_body', '')} FROM deliveries ORDER BY seq DESC LIMIT ?`, [Math.max(1, Math.min(limit, 10_000))]);
    return rows.rows.map((values) => toSummary(Object.fromEntries(rows.columns.map((c, i) => [c, values[i]!])) as Row));
  }

  get(id: string): DeliveryRecord | undefined {
    const rows = this.db.exec(`SELECT ${COLUMNS} FROM deliveries WHERE id = ?`, [id]);
    const values = rows.rows[0];
    if (!values) return undefined;
    const row = Object.fromEntries(rows.columns.map((c, i) => [c, values[i]!])) as Row;
    const { requestBytes: _n, ...summary } = toSummary(row);
    return { ...summary, requestBody: Buffer.from((row['request_body'] as Uint8Array | null) ?? new Uint8Array()), responseBody: String(row['response_body'] ?? '') };
  }

  async close(): Promise<void> {
    this.recorded.dispose();
    await this.db.close();
  }
}

function toSummary(row: Row): DeliverySummary {
  return {
    id: String(row['id']),
    time: String(row['time']),
    method: String(row['method']),
    path: String(row['path']),
    requestHeaders: JSON.parse(String(row['request_headers'])) as Record<string, string>,
    requestTruncated: row['request_truncated'] === 1,
    requestBytes: Number(row['request_bytes']),
    status: Number(row['status']),
    responseHeaders: JSON.parse(String(row['response_headers'])) as Record<string, string>,
    durationMs: Number(row['duration_ms']),
    provider: (row['provider'] as string | null) ?? null,
    entity: (row['entity'] as string | null) ?? null,
    verification: (row['verification'] as string | null) ?? null,
  };
}
