/**
 * The deliveries log: every request the receiver passes to the worker, accepted or rejected, with
 * its raw bytes, the response, timing, and what the worker said about it (provider, entity,
 * verification). A bounded ring in memory, persisted as append-only NDJSON in two rotating files
 * (each holds at most the bound, so together they always hold the newest deliveries); on start
 * the newest are read back and a torn last line is skipped. Writing a log line costs one append,
 * not a database write and an fsync on the request's path.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Emitter } from '../core/events';

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
  /** The id of the event the delivery was stored as (or recognised as a duplicate of). */
  readonly event?: string | null;
}

/** A delivery without its bodies, for lists and the live feed. */
export type DeliverySummary = Omit<DeliveryRecord, 'requestBody' | 'responseBody'> & { readonly requestBytes: number };

export interface DeliveryLogOptions {
  readonly dir: string;
  /** Deliveries kept (default 1000). */
  readonly maxCount?: number;
  /** Request bytes kept per delivery (default 1 MiB); larger bodies are kept truncated and marked. */
  readonly maxBodyBytes?: number;
}

interface Stored extends DeliverySummary {
  readonly body: string;
  readonly responseBody: string;
}

const FILES = ['deliveries-a.ndjson', 'deliveries-b.ndjson'] as const;

export class DeliveryLog {
  private readonly recorded = new Emitter<DeliverySummary>();
  readonly onDidRecord = this.recorded.event;
  private readonly ring: Stored[];
  private current: number;
  private linesInCurrent: number;
  private stream: fs.WriteStream;

  private constructor(
    private readonly dir: string,
    private readonly maxCount: number,
    private readonly maxBodyBytes: number,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const read = FILES.map((file) => readLines(path.join(dir, file)));
    // The file written last is the one whose newest line is newer.
    const newest = (lines: Stored[]) => lines.at(-1)?.time ?? '';
    this.current = newest(read[1]!) > newest(read[0]!) ? 1 : 0;
    this.ring = [...read[1 - this.current]!, ...read[this.current]!].slice(-maxCount);
    this.linesInCurrent = read[this.current]!.length;
    this.stream = this.open(this.current, 'a');
  }

  static async open(options: DeliveryLogOptions): Promise<DeliveryLog> {
    return new DeliveryLog(options.dir, options.maxCount ?? 1000, options.maxBodyBytes ?? 1024 * 1024);
  }

  private open(index: number, flags: 'a' | 'w'): fs.WriteStream {
    return fs.createWriteStream(path.join(this.dir, FILES[index]!), { flags });
  }

  record(delivery: Omit<DeliveryRecord, 'id' | 'requestTruncated'>): DeliverySummary {
    const truncated = delivery.requestBody.length > this.maxBodyBytes;
    const body = truncated ? delivery.requestBody.subarray(0, this.maxBodyBytes) : delivery.requestBody;
    const { requestBody: _b, responseBody, ...rest } = delivery;
    const summary: DeliverySummary = { ...rest, id: randomUUID(), requestTruncated: truncated, requestBytes: delivery.requestBody.length };
    const stored: Stored = { ...summary, body: body.toString('base64'), responseBody: responseBody.slice(0, 64 * 1024) };
    this.ring.push(stored);
    if (this.ring.length > this.maxCount) this.ring.shift();
    if (this.linesInCurrent >= this.maxCount) {
      // The other file holds only deliveries older than everything in this one: start it afresh.
      this.stream.end();
      this.current = 1 - this.current;
      this.stream = this.open(this.current, 'w');
      this.linesInCurrent = 0;
    }
    this.stream.write(JSON.stringify(stored) + '\n');
    this.linesInCurrent++;
    this.recorded.fire(summary);
    return summary;
  }

  /** Newest first. */
  list(limit = 100): DeliverySummary[] {
    return this.ring
      .slice(-Math.max(1, limit))
      .reverse()
      .map(({ body: _b, responseBody: _r, ...summary }) => summary);
  }

  get(id: string): DeliveryRecord | undefined {
    const found = this.ring.find((d) => d.id === id);
    if (!found) return undefined;
    const { body, requestBytes: _n, ...rest } = found;
    return { ...rest, requestBody: Buffer.from(body, 'base64') };
  }

  async close(): Promise<void> {
    this.recorded.dispose();
    await new Promise<void>((resolve) => this.stream.end(resolve));
  }
}

function readLines(file: string): Stored[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: Stored[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      out.push(JSON.parse(line) as Stored);
    } catch {
      // A line cut short by a crash: that delivery is not in the log.
    }
  }
  return out;
}
