/**
 * The outbound sink: where agents' webhooks land locally (`POST /__hookbench/sink/<name>`),
 * captured byte for byte and, when a sink secret is set, checked against `X-Signature` (the
 * seed's signed shape: hex HMAC-SHA256 of the body).
 */
import { randomUUID } from 'node:crypto';
import type { SqlJsStatic } from 'sql.js';
import type { Capture } from '../core/contract/sink';
import { Emitter } from '../core/events';
import { DurableDatabase } from '../core/runtime/durableDatabase';
import { generic, normalizeHeaders } from '../core/signing';

export class Sink {
  private readonly captured = new Emitter<Capture>();
  readonly onDidCapture = this.captured.event;

  private constructor(
    private readonly db: DurableDatabase,
    private readonly secret: string | undefined,
    private readonly maxCount: number,
  ) {}

  static async open(sql: SqlJsStatic, dir: string, secret: string | undefined, maxCount = 1000): Promise<Sink> {
    const db = await DurableDatabase.open({ sql, dir });
    db.exec('CREATE TABLE IF NOT EXISTS captures (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, sink TEXT NOT NULL, time TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL, verification TEXT)');
    await db.commit();
    return new Sink(db, secret, maxCount);
  }

  /** Captures one request; resolves once it is durable. */
  async capture(sink: string, headers: Record<string, string>, body: Buffer): Promise<Capture> {
    const verdict = this.secret ? generic.verify({ secret: this.secret, body, headers: normalizeHeaders(headers) }) : undefined;
    const verification = verdict === undefined ? null : verdict.valid ? 'valid' : `${verdict.reason}: ${verdict.message}`;
    const capture: Capture = { id: randomUUID(), sink, time: new Date().toISOString(), headers, body: body.toString('utf8'), bodyBase64: body.toString('base64'), verification };
    this.db.exec('INSERT INTO captures (id, sink, time, headers, body, verification) VALUES (?, ?, ?, ?, ?, ?)', [capture.id, sink, capture.time, JSON.stringify(headers), new Uint8Array(body), verification]);
    this.db.exec('DELETE FROM captures WHERE seq <= (SELECT max(seq) FROM captures) - ?', [this.maxCount]);
    await this.db.commit();
    this.captured.fire(capture);
    return capture;
  }

  /** Newest first; all sinks when `sink` is undefined. */
  list(sink: string | undefined, limit = 100): Capture[] {
    const where = sink === undefined ? '' : 'WHERE sink = ?';
    const result = this.db.exec(`SELECT id, sink, time, headers, body, verification FROM captures ${where} ORDER BY seq DESC LIMIT ?`, sink === undefined ? [limit] : [sink, limit]);
    return result.rows.map(([id, name, time, headers, body, verification]) => {
      const bytes = Buffer.from(body as Uint8Array);
      return { id: String(id), sink: String(name), time: String(time), headers: JSON.parse(String(headers)) as Record<string, string>, body: bytes.toString('utf8'), bodyBase64: bytes.toString('base64'), verification: (verification as string | null) ?? null };
    });
  }

  async close(): Promise<void> {
    this.captured.dispose();
    await this.db.close();
  }
}
