/**
 * The deliveries log: every request the receiver passes to the worker, accepted or rejected, with
 * its raw bytes, the response, timing, and what the worker said about it (provider, entity,
 * verification). A ring in memory bounded by count and by bytes (a thousand 1 MiB bodies would
 * otherwise hold 1.3 GB), persisted as append-only NDJSON files numbered in the order they were
 * written: each holds at most the bounds, and the two newest together always hold the newest
 * deliveries. A new file never reuses an old name, so writes still on their way to the previous
 * file cannot land in it. On start the two newest are read back and a torn last line is skipped. Writing a log line costs one append,
 * not a database write and an fsync on the request's path.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DeliveryRecord, DeliverySummary } from '../core/contract/deliveries';
import { Emitter } from '../core/events';
import { EVENT_TYPE } from '../core/signing';
import { APPEND, mkdirPrivate, PRIVATE_FILE_MODE, READ, readPrivate, writePrivate } from '../core/privateFiles';

export type { DeliveryRecord, DeliverySummary } from '../core/contract/deliveries';

export interface DeliveryLogOptions {
  readonly dir: string;
  /** Deliveries kept (default 1000). */
  readonly maxCount?: number;
  /** Request bytes kept per delivery (default 1 MiB); larger bodies are kept truncated and marked. */
  readonly maxBodyBytes?: number;
  /** Bytes of stored deliveries kept in memory, and in each of the two files (default 64 MiB). */
  readonly maxBytes?: number;
}

interface Stored extends DeliverySummary {
  readonly body: string;
  readonly responseBody: string;
}

/** Files of earlier versions, which reused two names; read once, then folded into a numbered one. */
const LEGACY = ['deliveries-a.ndjson', 'deliveries-b.ndjson'] as const;

function fileName(generation: number): string {
  return `deliveries-${String(generation).padStart(8, '0')}.ndjson`;
}

function generations(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .map((f) => /^deliveries-(\d{8})\.ndjson$/.exec(f)?.[1])
    .filter((g): g is string => g !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

export class DeliveryLog {
  private readonly recorded = new Emitter<DeliverySummary>();
  readonly onDidRecord = this.recorded.event;
  private readonly ring: Stored[] = [];
  private ringBytes = 0;
  private generation: number;
  private linesInCurrent: number;
  private bytesInCurrent: number;
  private stream: fs.WriteStream;

  private constructor(
    private readonly dir: string,
    private readonly maxCount: number,
    private readonly maxBodyBytes: number,
    private readonly maxBytes: number,
  ) {
    mkdirPrivate(dir);
    const all = generations(dir);
    for (const old of all.slice(0, -2)) fs.rmSync(this.file(old), { force: true });
    const files = all.slice(-2).map((g) => readLines(this.file(g)));
    const legacy = readLegacy(dir);
    for (const stored of [...legacy, ...files.flat()]) this.keep(stored);
    this.generation = all.at(-1) ?? 1;
    this.linesInCurrent = files.at(-1)?.length ?? 0;
    if (legacy.length > 0) {
      // Carry what the old files held into a new numbered one, then let them go.
      this.generation = (all.at(-1) ?? 0) + 1;
      writePrivate(this.file(this.generation), this.ring.map((d) => JSON.stringify(d) + '\n').join(''));
      this.linesInCurrent = this.ring.length;
    }
    for (const file of LEGACY) fs.rmSync(path.join(dir, file), { force: true });
    if (endsTorn(this.file(this.generation))) {
      // A crash cut the last line short: appending would glue the next line to it.
      this.generation += 1;
      this.linesInCurrent = 0;
    }
    this.bytesInCurrent = fileSize(this.file(this.generation));
    this.stream = this.open(this.generation);
  }

  static async open(options: DeliveryLogOptions): Promise<DeliveryLog> {
    return new DeliveryLog(options.dir, options.maxCount ?? 1000, options.maxBodyBytes ?? 1024 * 1024, options.maxBytes ?? 64 * 1024 * 1024);
  }

  /** Adds to the ring, dropping the oldest past either bound (the newest is always kept). */
  private keep(stored: Stored): void {
    this.ring.push(stored);
    this.ringBytes += storedBytes(stored);
    while (this.ring.length > 1 && (this.ring.length > this.maxCount || this.ringBytes > this.maxBytes)) {
      this.ringBytes -= storedBytes(this.ring.shift()!);
    }
  }

  private file(generation: number): string {
    return path.join(this.dir, fileName(generation));
  }

  private open(generation: number): fs.WriteStream {
    // Opened here, never through a link: the stream only writes to the descriptor.
    const fd = fs.openSync(this.file(generation), APPEND, PRIVATE_FILE_MODE);
    return fs.createWriteStream(this.file(generation), { fd, flags: 'a' });
  }

  record(delivery: Omit<DeliveryRecord, 'id' | 'requestTruncated'>): DeliverySummary {
    const truncated = delivery.requestBody.length > this.maxBodyBytes;
    const body = truncated ? delivery.requestBody.subarray(0, this.maxBodyBytes) : delivery.requestBody;
    const { requestBody: _b, responseBody, ...rest } = delivery;
    const summary: DeliverySummary = { ...rest, id: randomUUID(), requestTruncated: truncated, requestBytes: delivery.requestBody.length };
    const stored: Stored = { ...summary, body: body.toString('base64'), responseBody: responseBody.slice(0, 64 * 1024) };
    this.keep(stored);
    const line = JSON.stringify(stored) + '\n';
    if (this.linesInCurrent >= this.maxCount || (this.linesInCurrent > 0 && this.bytesInCurrent + line.length > this.maxBytes)) {
      // A new file; the one before the current one holds only deliveries older than everything
      // kept, so it goes.
      this.stream.end();
      fs.rmSync(this.file(this.generation - 1), { force: true });
      this.generation += 1;
      this.stream = this.open(this.generation);
      this.linesInCurrent = 0;
      this.bytesInCurrent = 0;
    }
    this.writeBatched(line);
    this.linesInCurrent++;
    this.bytesInCurrent += line.length;
    this.recorded.fire(summary);
    return summary;
  }

  /**
   * Lines recorded in one turn of the event loop go to the file in one write: the stream is
   * corked at the first and uncorked once the turn's I/O callbacks have run.
   */
  private writeBatched(line: string): void {
    const stream = this.stream;
    if (!stream.writableCorked) {
      stream.cork();
      setImmediate(() => stream.uncork());
    }
    stream.write(line);
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

/** What a stored delivery costs in memory, roughly: its two bodies dominate. */
function storedBytes(stored: Stored): number {
  return stored.body.length + stored.responseBody.length + 512;
}

/** True when the file's last line has no newline: a write cut short. */
function endsTorn(file: string): boolean {
  const size = fileSize(file);
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  const fd = fs.openSync(file, READ);
  try {
    fs.readSync(fd, last, 0, 1, size - 1);
  } finally {
    fs.closeSync(fd);
  }
  return last[0] !== 0x0a;
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** The deliveries of the two reused files of earlier versions, oldest first. */
function readLegacy(dir: string): Stored[] {
  const [a, b] = LEGACY.map((file) => readLines(path.join(dir, file))) as [Stored[], Stored[]];
  // The file written last is the one whose newest line is newer.
  const newest = (lines: Stored[]) => lines.at(-1)?.time ?? '';
  return newest(b) > newest(a) ? [...a, ...b] : [...b, ...a];
}

function readLines(file: string): Stored[] {
  let text: string;
  try {
    text = readPrivate(file).toString('utf8');
  } catch {
    return [];
  }
  const out: Stored[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // A line cut short by a crash: that delivery is not in the log.
      continue;
    }
    // A line planted or altered on disk never reaches the views, replay or copy as cURL.
    if (isStored(parsed)) out.push(parsed);
  }
  return out;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;
const isText = (v: unknown): v is string => typeof v === 'string';
const isTextOrNull = (v: unknown): boolean => v === null || v === undefined || typeof v === 'string';

function isHeaders(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(([name, v]) => TOKEN.test(name) && isText(v) && HEADER_VALUE.test(v));
}

/** Whether a line read back from disk has the shape, and the safe values, that `record` writes. */
export function isStored(value: unknown): value is Stored {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Record<string, unknown>;
  return (
    isText(d['id']) &&
    /^[\w-]{1,64}$/.test(d['id']) &&
    isText(d['time']) &&
    !Number.isNaN(Date.parse(d['time'])) &&
    isText(d['method']) &&
    TOKEN.test(d['method']) &&
    d['method'].length <= 32 &&
    isText(d['path']) &&
    d['path'].startsWith('/') &&
    !/[\s\p{Cc}]/u.test(d['path']) &&
    isHeaders(d['requestHeaders']) &&
    isHeaders(d['responseHeaders']) &&
    typeof d['requestTruncated'] === 'boolean' &&
    typeof d['requestBytes'] === 'number' &&
    Number.isInteger(d['requestBytes']) &&
    d['requestBytes'] >= 0 &&
    typeof d['status'] === 'number' &&
    Number.isInteger(d['status']) &&
    d['status'] >= 100 &&
    d['status'] <= 599 &&
    typeof d['durationMs'] === 'number' &&
    Number.isFinite(d['durationMs']) &&
    isText(d['body']) &&
    /^[A-Za-z0-9+/]*={0,2}$/.test(d['body']) &&
    isText(d['responseBody']) &&
    isTextOrNull(d['provider']) &&
    isTextOrNull(d['entity']) &&
    isTextOrNull(d['verification']) &&
    isTextOrNull(d['event']) &&
    (d['eventType'] === undefined || d['eventType'] === null || (isText(d['eventType']) && EVENT_TYPE.test(d['eventType']))) &&
    (d['duplicate'] === undefined || typeof d['duplicate'] === 'boolean') &&
    (d['source'] === undefined || isSource(d['source'])) &&
    (d['nextRetry'] === undefined || isNextRetry(d['nextRetry']))
  );
}

const isRetryNumber = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 99;

function isNextRetry(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  return isRetryNumber(r['retry']) && isRetryNumber(r['retries']) && isText(r['at']) && !Number.isNaN(Date.parse(r['at']));
}

const SAFE_TEXT = /^[^\p{Cc}]{0,300}$/u;

/** A delivery's source as `record` writes it: a known kind, short names and notes without control characters. */
function isSource(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const s = value as Record<string, unknown>;
  return (
    ['send', 'replay', 'relay', 'public', 'retry'].includes(s['kind'] as string) &&
    (s['of'] === undefined || (isText(s['of']) && /^[0-9a-f-]{36}$/.test(s['of']))) &&
    (s['retry'] === undefined || isRetryNumber(s['retry'])) &&
    (s['name'] === undefined || (isText(s['name']) && SAFE_TEXT.test(s['name']))) &&
    (s['note'] === undefined || (isText(s['note']) && SAFE_TEXT.test(s['note'])))
  );
}
