/**
 * The outbound sink: where agents' webhooks land locally (`POST /__hookbench/sink/<name>`),
 * captured byte for byte and, when a sink secret is set, checked against `X-Signature` (the
 * signed shape docs/admin-api.md describes: hex HMAC-SHA256 of the body).
 *
 * It takes requests without a token, so it keeps its captures within bounds (docs/security.md,
 * "Bounds"): a body over the per-capture cap is refused, and the oldest captures are dropped to
 * stay within a total byte budget and a count, with the number dropped kept per sink so the list
 * can say so. What they prevent was measured (docs/security.md, "Bounds").
 */
import { randomUUID } from 'node:crypto';
import type { SqlJsStatic } from 'sql.js';
import { captureTooLargeMessage, SINK_LIMITS, type Capture, type CaptureList, type SinkLimits } from '../core/contract/sink';
import { verificationNote } from '../core/contract/notes';
import { Emitter } from '../core/events';
import { DurableDatabase } from '../runtime/storage/durableDatabase';
import { generic, normalizeHeaders } from '../core/signing';

export interface SinkOptions extends Partial<SinkLimits> {
  /** `HOOKBENCH_SINK_SECRET`: when set, every capture's `X-Signature` is checked against it. */
  readonly secret?: string;
}

/** A body over the per-capture cap: the route answers 413 with this message. */
export class CaptureTooLargeError extends Error {
  readonly status = 413;
  constructor(limit: number, declared?: number) {
    super(captureTooLargeMessage(limit, declared));
  }
}

/** What the bounds need of a stored capture, without reading its body. */
interface Kept {
  readonly seq: number;
  readonly sink: string;
  readonly bytes: number;
}

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS captures (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, sink TEXT NOT NULL, time TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL, verification TEXT, bytes INTEGER)',
  'CREATE TABLE IF NOT EXISTS dropped (sink TEXT PRIMARY KEY, n INTEGER NOT NULL)',
];

export class Sink {
  private readonly captured = new Emitter<Capture>();
  readonly onDidCapture = this.captured.event;
  /** Bytes (bodies and headers) the stored captures hold together. */
  private total = 0;

  private constructor(
    private readonly db: DurableDatabase,
    private readonly secret: string | undefined,
    readonly limits: SinkLimits,
    /** The stored captures, oldest first. */
    private readonly kept: Kept[],
    private readonly droppedBySink: Map<string, number>,
  ) {
    for (const { bytes } of kept) this.total += bytes;
  }

  static async open(sql: SqlJsStatic, dir: string, options: SinkOptions = {}): Promise<Sink> {
    const limits: SinkLimits = {
      maxCaptureBytes: options.maxCaptureBytes ?? SINK_LIMITS.maxCaptureBytes,
      maxTotalBytes: options.maxTotalBytes ?? SINK_LIMITS.maxTotalBytes,
      maxCount: options.maxCount ?? SINK_LIMITS.maxCount,
    };
    if (!(limits.maxCaptureBytes > 0 && limits.maxTotalBytes >= limits.maxCaptureBytes && limits.maxCount >= 1)) {
      throw new Error(`the sink's bounds do not hold one capture: ${JSON.stringify(limits)}`);
    }
    const db = await DurableDatabase.open({ sql, dir });
    for (const statement of SCHEMA) db.exec(statement);
    // Captures of earlier versions have no byte count: it is counted once, here.
    if (!db.exec('SELECT name FROM pragma_table_info(?)', ['captures']).rows.some(([name]) => name === 'bytes'))
      db.exec('ALTER TABLE captures ADD COLUMN bytes INTEGER');
    db.exec('UPDATE captures SET bytes = length(body) + length(CAST(headers AS BLOB)) WHERE bytes IS NULL');
    const kept = db
      .exec('SELECT seq, sink, bytes FROM captures ORDER BY seq')
      .rows.map(([seq, sink, bytes]) => ({ seq: Number(seq), sink: String(sink), bytes: Number(bytes) }));
    const dropped = new Map(db.exec('SELECT sink, n FROM dropped').rows.map(([sink, n]) => [String(sink), Number(n)]));
    const opened = new Sink(db, options.secret, limits, kept, dropped);
    await opened.shrinkEarlierVersion();
    return opened;
  }

  /**
   * A sink of an earlier version may hold far more than the budget (gigabytes): drop down to it,
   * and give the freed pages back, or the in-memory database and every snapshot keep their size.
   */
  private async shrinkEarlierVersion(): Promise<void> {
    this.trim();
    const [[freePages]] = this.db.exec('PRAGMA freelist_count').rows as [[number]];
    const [[pageSize]] = this.db.exec('PRAGMA page_size').rows as [[number]];
    if (freePages * pageSize > this.limits.maxTotalBytes) {
      await this.db.commit();
      this.db.exec('VACUUM');
      await this.db.commit();
      await this.db.snapshot();
    }
    await this.db.commit();
  }

  /** Captures one request; resolves once it is durable. Throws {@link CaptureTooLargeError} for a body over the cap. */
  async capture(sink: string, headers: Record<string, string>, body: Buffer): Promise<Capture> {
    if (body.length > this.limits.maxCaptureBytes) throw new CaptureTooLargeError(this.limits.maxCaptureBytes);
    const verdict = this.secret ? generic.verify({ secret: this.secret, body, headers: normalizeHeaders(headers) }) : undefined;
    const verification = verdict === undefined ? null : verificationNote(verdict);
    const capture: Capture = {
      id: randomUUID(),
      sink,
      time: new Date().toISOString(),
      headers,
      body: body.toString('utf8'),
      bodyBase64: body.toString('base64'),
      verification,
    };
    const headerText = JSON.stringify(headers);
    const bytes = body.length + Buffer.byteLength(headerText);
    const [[seq]] = this.db.exec('INSERT INTO captures (id, sink, time, headers, body, verification, bytes) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq', [
      capture.id,
      sink,
      capture.time,
      headerText,
      new Uint8Array(body),
      verification,
      bytes,
    ]).rows as [[number]];
    this.kept.push({ seq, sink, bytes });
    this.total += bytes;
    this.trim();
    await this.db.commit();
    this.captured.fire(capture);
    return capture;
  }

  /** Drops the oldest captures until the rest fit the budget and the count; the newest always stays. */
  private trim(): void {
    const { maxTotalBytes, maxCount } = this.limits;
    const droppedNow = new Map<string, number>();
    let through: number | undefined;
    while (this.kept.length > 1 && (this.total > maxTotalBytes || this.kept.length > maxCount)) {
      const oldest = this.kept.shift()!;
      this.total -= oldest.bytes;
      through = oldest.seq;
      droppedNow.set(oldest.sink, (droppedNow.get(oldest.sink) ?? 0) + 1);
    }
    if (through === undefined) return;
    this.db.exec('DELETE FROM captures WHERE seq <= ?', [through]);
    for (const [sink, n] of droppedNow) {
      this.db.exec('INSERT INTO dropped (sink, n) VALUES (?, ?) ON CONFLICT (sink) DO UPDATE SET n = n + excluded.n', [sink, n]);
      this.droppedBySink.set(sink, (this.droppedBySink.get(sink) ?? 0) + n);
    }
  }

  /** Captures the bounds dropped so far, of `sink` or of all sinks. */
  dropped(sink?: string): number {
    if (sink !== undefined) return this.droppedBySink.get(sink) ?? 0;
    let all = 0;
    for (const n of this.droppedBySink.values()) all += n;
    return all;
  }

  /** Bytes (bodies and headers) the stored captures hold together. */
  get totalBytes(): number {
    return this.total;
  }

  /** Newest first; all sinks when `sink` is undefined. */
  list(sink: string | undefined, limit = 100): CaptureList {
    const where = sink === undefined ? '' : 'WHERE sink = ?';
    const result = this.db.exec(
      `SELECT id, sink, time, headers, body, verification FROM captures ${where} ORDER BY seq DESC LIMIT ?`,
      sink === undefined ? [limit] : [sink, limit],
    );
    const captures = result.rows.map(([id, name, time, headers, body, verification]) => {
      const bytes = Buffer.from(body as Uint8Array);
      return {
        id: String(id),
        sink: String(name),
        time: String(time),
        headers: JSON.parse(String(headers)) as Record<string, string>,
        body: bytes.toString('utf8'),
        bodyBase64: bytes.toString('base64'),
        verification: (verification as string | null) ?? null,
      };
    });
    return { captures, dropped: this.dropped(sink) };
  }

  async close(): Promise<void> {
    this.captured.dispose();
    await this.db.close();
  }
}
