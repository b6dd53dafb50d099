/**
 * Cloudflare Queues in one durable backlog: producers' `send`/`sendBatch` commit each message
 * before they resolve (a message sent is never lost on a crash, and is delivered after a restart),
 * and a broker hands batches to the worker's `queue(batch, env, ctx)` — when `max_batch_size`
 * messages are ready or `max_batch_timeout` has passed since the first one was — then applies the
 * handler's verdicts: ack deletes, retry delays (`retry_delay` or the call's `delaySeconds`), and
 * after `max_retries` retries a message moves to the dead-letter queue (or is dropped, logged).
 * Up to `max_concurrency` batches of a queue are in flight at once (Cloudflare scales to 250 when
 * it is unset; Miniflare keeps one): a new batch starts beside the running ones when enough other
 * messages are ready, never holding a message another batch holds.
 * Delivery is at least once: a batch in flight when the process dies is delivered again.
 * Clock and timers are injected.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../core/log';
import type { TimerHandle, Timers } from '../../core/timers';
import { MAX_CONCURRENCY, type QueueConsumer } from '../../core/workerConfig/bindingsConfig';
import type { BindingStore } from './bindingStore';
import { checkDelay, decodeBody, encodeBody, LimitError, MAX_BATCH_BYTES, MAX_BATCH_MESSAGES, type ContentType } from './queueMessages';

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, queue TEXT NOT NULL, body BLOB NOT NULL, content_type TEXT NOT NULL, attempts INTEGER NOT NULL, visible_at INTEGER NOT NULL, sent_at INTEGER NOT NULL)',
  'CREATE INDEX IF NOT EXISTS messages_by_queue ON messages (queue, visible_at, seq)',
];

/** A consumer as the wrangler config declares it (bindingsConfig.ts). */
export type ConsumerSettings = QueueConsumer;

export interface QueueMessage {
  readonly id: string;
  readonly timestamp: Date;
  readonly body: unknown;
  readonly attempts: number;
  ack(): void;
  retry(options?: { delaySeconds?: number }): void;
}

export interface MessageBatch {
  readonly queue: string;
  readonly messages: readonly QueueMessage[];
  ackAll(): void;
  retryAll(options?: { delaySeconds?: number }): void;
}

/** Calls the worker's `queue()` handler; rejects when it throws. */
export type Deliver = (batch: MessageBatch) => Promise<void>;

/** What `send`/`sendBatch` resolve to: the queue's backlog before the send, as workerd reports it. */
export interface QueueSendResponse {
  readonly metadata: { readonly metrics: { readonly backlogCount: number; readonly backlogBytes: number; readonly oldestMessageTimestamp?: Date } };
}

export interface QueueProducerBinding {
  send(body: unknown, options?: { contentType?: string; delaySeconds?: number }): Promise<QueueSendResponse>;
  sendBatch(
    messages: Iterable<{ body: unknown; contentType?: string; delaySeconds?: number }>,
    options?: { delaySeconds?: number },
  ): Promise<QueueSendResponse>;
}

/**
 * The handler's calls on one batch, with workerd's precedence: a message retried is not acked and
 * one acked is not retried (the later call is ignored), `retry()` after `ackAll()` is ignored, and
 * `ackAll()`/`retryAll()` exclude each other. `retryAll()` (or a handler that throws) retries every
 * message, explicitly acked ones included, as Miniflare does.
 */
class BatchCalls {
  ackAll = false;
  retryAll: { delaySeconds?: number } | undefined;
  readonly acks = new Set<string>();
  readonly retries = new Map<string, number | undefined>();

  ack(id: string): void {
    if (!this.retries.has(id)) this.acks.add(id);
  }

  retry(id: string, delaySeconds: number | undefined): void {
    if (!this.ackAll && !this.acks.has(id) && !this.retries.has(id)) this.retries.set(id, delaySeconds);
  }

  ackEvery(): void {
    if (!this.retryAll) this.ackAll = true;
  }

  retryEvery(delaySeconds: number | undefined): void {
    if (!this.ackAll) this.retryAll ??= { delaySeconds };
  }

  /** Whether `id` is retried, and after how many seconds (undefined: the consumer's retry_delay). */
  verdict(id: string, failed: boolean): { retry: false } | { retry: true; delaySeconds: number | undefined } {
    if (failed || this.retryAll || this.retries.has(id)) return { retry: true, delaySeconds: this.retries.get(id) ?? this.retryAll?.delaySeconds };
    return { retry: false };
  }
}

interface Row {
  readonly seq: number;
  readonly id: string;
  readonly body: Uint8Array;
  readonly type: ContentType;
  readonly attempts: number;
  readonly sentAt: number;
}

/** One waiting message as the explorer shows it (read-only). */
export interface WaitingMessage {
  readonly seq: number;
  readonly id: string;
  readonly attempts: number;
  readonly sentAt: number;
  readonly visibleAt: number;
  readonly contentType: string;
  readonly size: number;
}

/** A queue's backlog as the explorer shows it: counts, and a page of messages oldest first. */
export interface QueueSnapshot {
  readonly backlog: number;
  readonly delayed: number;
  readonly inFlight: number;
  readonly retried: number;
  readonly consumer: ConsumerSettings | undefined;
  readonly deadLettered: number;
  readonly messages: WaitingMessage[];
  /** More messages follow the page. */
  readonly more: boolean;
}

export interface QueueBrokerOptions {
  readonly store: BindingStore;
  readonly consumers: readonly ConsumerSettings[];
  readonly deliver: Deliver;
  readonly logger: Logger;
  readonly now: () => number;
  readonly timers: Timers;
}

export class QueueBroker {
  private readonly consumers = new Map<string, ConsumerSettings>();
  private readonly timers = new Map<string, TimerHandle>();
  /** Each queue's batches being handled now: up to its `max_concurrency` at once. */
  private readonly inFlight = new Map<string, Set<Promise<void>>>();
  /** Queues choosing the rows of a new batch (one choice at a time, so no row is in two batches). */
  private readonly starting = new Set<string>();
  /** The rows every batch of a queue holds now (not part of its backlog). */
  private readonly busy = new Map<string, Set<number>>();
  private stopped = false;

  constructor(private readonly options: QueueBrokerOptions) {
    for (const consumer of options.consumers) this.consumers.set(consumer.queue, consumer);
  }

  static schema = SCHEMA;

  /** Picks up the backlog a previous run left (messages sent but never acknowledged). */
  async start(): Promise<void> {
    for (const queue of this.consumers.keys()) await this.wake(queue);
  }

  /** The binding a producer's `env.QUEUE` is. */
  producer(queue: string, deliveryDelaySeconds = 0): QueueProducerBinding {
    const logged = async <T>(method: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        if (error instanceof LimitError) this.options.logger.warn(`[queues] ${method} to "${queue}" refused: ${error.reason}`);
        throw error;
      }
    };
    return {
      send: (body, options = {}) =>
        logged('send', async () => {
          const { bytes, type } = encodeBody('send', body, options.contentType);
          const delay = options.delaySeconds === undefined ? deliveryDelaySeconds : checkDelay(options.delaySeconds);
          return this.enqueue(queue, [{ bytes, type, delay }]);
        }),
      sendBatch: (messages, options = {}) =>
        logged('sendBatch', async () => {
          const list = [...messages];
          if (list.length === 0) throw new TypeError('sendBatch() requires at least one message');
          const encoded = list.map((message) => ({ ...encodeBody('sendBatch', message.body, message.contentType), delaySeconds: message.delaySeconds }));
          if (list.length > MAX_BATCH_MESSAGES) throw new LimitError(`batch message count of ${list.length} exceeds limit of ${MAX_BATCH_MESSAGES}`);
          const total = encoded.reduce((sum, m) => sum + m.bytes.byteLength, 0);
          if (total > MAX_BATCH_BYTES) throw new LimitError(`batch size of ${total} bytes exceeds limit of ${MAX_BATCH_BYTES}`);
          const batchDelay = options.delaySeconds === undefined ? deliveryDelaySeconds : checkDelay(options.delaySeconds);
          return this.enqueue(
            queue,
            encoded.map((m) => ({ bytes: m.bytes, type: m.type, delay: m.delaySeconds === undefined ? batchDelay : checkDelay(m.delaySeconds) })),
          );
        }),
    };
  }

  private async enqueue(queue: string, messages: readonly { bytes: Uint8Array; type: ContentType; delay: number }[]): Promise<QueueSendResponse> {
    const now = this.options.now();
    const busy = [...(this.busy.get(queue) ?? [])];
    const metrics = await this.options.store.write((db) => {
      // The backlog before this send: deliverable messages not in a batch being handled.
      const [count, bytes, oldest] = db.exec(
        `SELECT count(*), coalesce(sum(length(body)), 0), min(sent_at) FROM messages WHERE queue = ? AND visible_at <= ? AND seq NOT IN (${busy.map(() => '?').join(', ')})`,
        [queue, now, ...busy],
      ).rows[0]!;
      for (const m of messages) {
        db.exec('INSERT INTO messages (id, queue, body, content_type, attempts, visible_at, sent_at) VALUES (?, ?, ?, ?, 1, ?, ?)', [
          randomUUID().replace(/-/g, ''),
          queue,
          m.bytes,
          m.type,
          now + m.delay * 1000,
          now,
        ]);
      }
      return { backlogCount: Number(count), backlogBytes: Number(bytes), ...(Number(count) > 0 ? { oldestMessageTimestamp: new Date(Number(oldest)) } : {}) };
    });
    void this.wake(queue);
    return { metadata: { metrics } };
  }

  /** Messages waiting in a queue (the explorer's backlog), delayed ones included. */
  async backlog(queue: string): Promise<number> {
    return this.options.store.read((db) => Number(db.exec('SELECT count(*) FROM messages WHERE queue = ?', [queue]).rows[0]![0]));
  }

  /**
   * The explorer's view of `queue` (read only): backlog, delayed, in flight, retried, its consumer's
   * dead-letter queue and what waits there, and up to `limit` messages after sequence `after`.
   */
  async snapshot(queue: string, limit: number, after = 0): Promise<QueueSnapshot> {
    const consumer = this.consumers.get(queue);
    const now = this.options.now();
    return this.options.store.read((db) => {
      const [backlog, delayed, retried] = db
        .exec('SELECT count(*), count(CASE WHEN visible_at > ? THEN 1 END), count(CASE WHEN attempts > 1 THEN 1 END) FROM messages WHERE queue = ?', [
          now,
          queue,
        ])
        .rows[0]!.map(Number) as [number, number, number];
      const dlq = consumer?.deadLetterQueue;
      const deadLettered = dlq ? Number(db.exec('SELECT count(*) FROM messages WHERE queue = ?', [dlq]).rows[0]![0]) : 0;
      const rows = db.exec(
        'SELECT seq, id, attempts, sent_at, visible_at, content_type, length(body) FROM messages WHERE queue = ? AND seq > ? ORDER BY seq LIMIT ?',
        [queue, after, limit + 1],
      ).rows;
      const messages = rows.slice(0, limit).map(([seq, id, attempts, sentAt, visibleAt, contentType, size]) => ({
        seq: Number(seq),
        id: String(id),
        attempts: Number(attempts),
        sentAt: Number(sentAt),
        visibleAt: Number(visibleAt),
        contentType: String(contentType),
        size: Number(size),
      }));
      return { backlog, delayed, inFlight: this.busy.get(queue)?.size ?? 0, retried, consumer, deadLettered, messages, more: rows.length > limit };
    });
  }

  /** Decides, for one queue, whether to deliver now or when to look again. */
  private async wake(queue: string): Promise<void> {
    const consumer = this.consumers.get(queue);
    if (!consumer || this.stopped || this.full(consumer)) return;
    this.timers.get(queue)?.cancel();
    this.timers.delete(queue);
    const now = this.options.now();
    const busy = [...(this.busy.get(queue) ?? [])];
    const notBusy = `seq NOT IN (${busy.map(() => '?').join(', ')})`;
    const [ready, since, nextVisible] = await this.options.store.read((db) => {
      const [r, s] = db.exec(`SELECT count(*), min(visible_at) FROM messages WHERE queue = ? AND visible_at <= ? AND ${notBusy}`, [queue, now, ...busy])
        .rows[0]!;
      const n = db.exec('SELECT min(visible_at) FROM messages WHERE queue = ? AND visible_at > ?', [queue, now]).rows[0]![0];
      return [Number(r), Number(s), n === null ? undefined : Number(n)] as const;
    });
    // A batch may have started or ended meanwhile: its end wakes the queue again.
    if (this.full(consumer) || busy.length !== (this.busy.get(queue)?.size ?? 0)) return;
    let due: number | undefined = nextVisible;
    if (ready > 0) {
      // The batch timeout runs from when the oldest waiting message became deliverable.
      const flushAt = since + consumer.maxBatchTimeoutMs;
      if (ready >= consumer.maxBatchSize || flushAt <= now) {
        this.startBatch(consumer);
        return;
      }
      due = due === undefined ? flushAt : Math.min(due, flushAt);
    }
    if (due !== undefined) {
      this.timers.set(
        queue,
        // Measured from the clock now, not from before the read: time may have moved meanwhile.
        this.options.timers.after(Math.max(0, due - this.options.now()), () => {
          this.timers.delete(queue);
          void this.wake(queue);
        }),
      );
    }
  }

  /** Whether the queue has as many batches in flight as it may (or is choosing one now). */
  private full(consumer: ConsumerSettings): boolean {
    return this.starting.has(consumer.queue) || (this.inFlight.get(consumer.queue)?.size ?? 0) >= (consumer.maxConcurrency ?? MAX_CONCURRENCY);
  }

  private startBatch(consumer: ConsumerSettings): void {
    const queue = consumer.queue;
    const batches = this.inFlight.get(queue) ?? new Set<Promise<void>>();
    this.inFlight.set(queue, batches);
    this.starting.add(queue);
    let rows: readonly Row[] = [];
    /** The batch's rows leave the in-flight count together with their verdicts (one synchronous step). */
    const release = () => {
      const busy = this.busy.get(queue);
      for (const row of rows) busy?.delete(row.seq);
      if (busy?.size === 0) this.busy.delete(queue);
      rows = [];
    };
    const running: Promise<void> = this.runBatch(
      consumer,
      (chosen) => {
        // The rows are this batch's before any other batch of the queue chooses.
        rows = chosen;
        const busy = this.busy.get(queue) ?? new Set<number>();
        for (const row of chosen) busy.add(row.seq);
        this.busy.set(queue, busy);
        this.starting.delete(queue);
        // Another batch may start beside this one, up to max_concurrency.
        void this.wake(queue);
      },
      release,
    )
      .catch((error: unknown) => this.options.logger.error(`[queues] ${queue}: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => {
        this.starting.delete(queue);
        batches.delete(running);
        if (batches.size === 0) this.inFlight.delete(queue);
        release();
        void this.wake(queue);
      });
    batches.add(running);
  }

  private async runBatch(consumer: ConsumerSettings, claim: (rows: readonly Row[]) => void, release: () => void): Promise<void> {
    const now = this.options.now();
    const busy = [...(this.busy.get(consumer.queue) ?? [])];
    const rows = await this.options.store.read((db) =>
      db
        .exec(
          `SELECT seq, id, body, content_type, attempts, sent_at FROM messages WHERE queue = ? AND visible_at <= ? AND seq NOT IN (${busy.map(() => '?').join(', ')}) ORDER BY seq LIMIT ?`,
          [consumer.queue, now, ...busy, consumer.maxBatchSize],
        )
        .rows.map(([seq, id, body, type, attempts, sentAt]) => ({ seq, id, body, type, attempts, sentAt }) as Row),
    );
    if (rows.length === 0) return;
    claim(rows);
    const calls = new BatchCalls();
    const messages: QueueMessage[] = rows.map((row) => ({
      id: row.id,
      timestamp: new Date(row.sentAt),
      body: decodeBody(row.body, row.type),
      attempts: row.attempts,
      ack: () => calls.ack(row.id),
      retry: (options) => calls.retry(row.id, options?.delaySeconds),
    }));
    const batch: MessageBatch = {
      queue: consumer.queue,
      messages,
      ackAll: () => calls.ackEvery(),
      retryAll: (options) => calls.retryEvery(options?.delaySeconds),
    };
    let failed = false;
    try {
      await this.options.deliver(batch);
    } catch (error) {
      failed = true;
      this.options.logger.error(`[queues] the queue() handler of ${consumer.queue} threw: ${(error as Error)?.stack ?? String(error)}`);
    }
    const after = this.options.now();
    const dead: string[] = [];
    await this.options.store.write((db) => {
      for (const row of rows) {
        const verdict = calls.verdict(row.id, failed);
        if (!verdict.retry) {
          db.exec('DELETE FROM messages WHERE seq = ?', [row.seq]);
        } else if (row.attempts > consumer.maxRetries) {
          if (consumer.deadLetterQueue) {
            db.exec('UPDATE messages SET queue = ?, attempts = 1, visible_at = ? WHERE seq = ?', [consumer.deadLetterQueue, after, row.seq]);
            dead.push(row.id);
          } else {
            db.exec('DELETE FROM messages WHERE seq = ?', [row.seq]);
            this.options.logger.warn(`[queues] ${consumer.queue}: message ${row.id} dropped after ${consumer.maxRetries} retries (no dead_letter_queue)`);
          }
        } else {
          const delay = verdict.delaySeconds ?? consumer.retryDelaySeconds;
          db.exec('UPDATE messages SET attempts = attempts + 1, visible_at = ? WHERE seq = ?', [after + delay * 1000, row.seq]);
        }
      }
      release();
    });
    if (dead.length > 0 && consumer.deadLetterQueue) void this.wake(consumer.deadLetterQueue);
  }

  /** Stops delivering; waits for batches in flight (their verdicts are committed). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const handle of this.timers.values()) handle.cancel();
    this.timers.clear();
    await Promise.allSettled([...this.inFlight.values()].flatMap((batches) => [...batches]));
  }
}
