/**
 * The Queues area: send/sendBatch with each contentType and delay, the limits' errors, the
 * consumer's batches (max_batch_size 3, max_batch_timeout 1 s), ack/retry/ackAll/retryAll and their
 * precedence, a throwing handler, max_retries then the dead-letter queue. What the consumer saw
 * settles in the background: the worker records it in KV and `/seen?t=<scenario>` reads it back.
 */
import type { Area, HttpStep, PollStep, Step } from '../../step';

/**
 * A send's metrics are the queue's backlog at that instant, which depends on when each runtime
 * flushes its batches: compared by shape (backlogCount and backlogBytes are numbers); the oldest
 * message's timestamp is there only when the backlog is not empty, so it is left out.
 */
function metricsShape(body: unknown): unknown {
  if (!Array.isArray(body)) return body;
  return body.map((entry: { result?: { metadata?: { metrics?: Record<string, unknown> } } }) => {
    const metrics = entry.result?.metadata?.metrics;
    if (!metrics) return entry;
    const shape = Object.fromEntries(
      Object.entries(metrics)
        .filter(([k]) => k !== 'oldestMessageTimestamp')
        .map(([k, v]) => [k, typeof v]),
    );
    return { result: { metadata: { metrics: shape } } };
  });
}

const send = (name: string, calls: { method: 'send' | 'sendBatch'; args: unknown[] }[], slow = false): HttpStep => ({
  name,
  method: 'POST',
  path: '/send',
  body: JSON.stringify({ calls, ...(slow ? { slow } : {}) }),
  compare: { body: 'json', normalize: metricsShape },
});

const one = (body: unknown, options?: unknown) => ({ method: 'send' as const, args: options === undefined ? [body] : [body, options] });
const batch = (messages: unknown[], options?: unknown) => ({ method: 'sendBatch' as const, args: options === undefined ? [messages] : [messages, options] });

const countAtLeast = (n: number) => (_status: number, body: string) => {
  try {
    return (JSON.parse(body) as unknown[]).length >= n;
  } catch {
    return false;
  }
};

/** The consumer's `max_batch_size` for diff-work (wrangler.jsonc). */
const MAX_BATCH = 3;

/**
 * For messages sent one `send` at a time, which of them share a batch depends on how long each send
 * takes (a loaded machine lets the 1 s timeout flush a batch before it is full), in the real runtime
 * as in Hookbench. So their `together` lists are compared as what must hold whatever the timing:
 * each message is in its own batch, no batch is over MAX_BATCH, and the lists agree with each other
 * (a partition of the messages). A record that breaks it keeps its list and says what it breaks.
 */
function batchesAsPartition(body: unknown): unknown {
  if (!Array.isArray(body)) return body;
  // Key: seen:<t>:<label>:<attempt>:<queue>; a batch holds one attempt of one queue.
  const records = (body as [string, { together?: string[] } | null][]).map(([name, record]) => {
    const [, , label, attempt, queue] = name.split(':');
    return { name, record, label: label!, batch: `${attempt}:${queue}`, list: JSON.stringify(record?.together ?? null) };
  });
  const listOf = new Map(records.map(({ label, batch, list }) => [`${label}:${batch}`, list]));
  return records.map(({ name, record, label, batch, list }) => {
    if (!record || !Array.isArray(record.together)) return [name, record];
    const together = record.together;
    const broken = !together.includes(label)
      ? 'not in its own batch'
      : together.length > MAX_BATCH
        ? `a batch over ${MAX_BATCH}`
        : together.some((other) => listOf.get(`${other}:${batch}`) !== list)
          ? 'batch lists that disagree'
          : undefined;
    return [name, { ...record, together: broken ? { broken, together } : `one batch of at most ${MAX_BATCH}, the same list in each of its messages` }];
  });
}

const seen = (t: string, normalize?: (body: unknown) => unknown): HttpStep => ({
  name: `seen ${t}`,
  path: `/seen?t=${t}`,
  compare: { body: 'json', ...(normalize ? { normalize } : {}) },
});

/** Waits until `n` deliveries of scenario `t` are recorded, then compares them. */
const settled = (name: string, t: string, n: number, timeoutMs = 8000, normalize?: (body: unknown) => unknown): PollStep => ({
  kind: 'poll',
  name,
  step: seen(t, normalize),
  until: countAtLeast(n),
  timeoutMs,
  intervalMs: 100,
});

/** Scenarios whose messages are sent one `send` at a time: their batches follow the timing. */
const TIMED = new Set(['types']);

const SCENARIOS = ['types', 'prec', 'prec2', 'prec3', 'prec4', 'throw', 'dlq', 'delay', 'slow', 'rdelay', 'big', 'view', 'undefined'];

export const area: Area = {
  name: 'queues',
  folder: 'queues',
  steps: [
    send('send answers', [one({ t: 'plain', n: 1 })]),
    settled('a plain message is delivered once', 'plain', 1),
    send('an unknown contentType', [one('x', { contentType: 'nope' })]),
    send('text with a number', [one(42, { contentType: 'text' })]),
    send('bytes with a string', [one('x', { contentType: 'bytes' })]),
    send('json of undefined', [one(undefined, { contentType: 'json' })]),
    send('a text message over 128 KB', [one({ $repeat: ['big:', 'x', 128_001] }, { contentType: 'text' })]),
    send('a message of exactly 128 KB', [one({ $repeat: ['big:', 'x', 128_000 - 4] }, { contentType: 'text' })]),
    send('a v8 message over 128 KB', [one({ $repeat: ['big:', 'x', 128_001] })]),
    send('a batch of 101', [batch(Array.from({ length: 101 }, (_, n) => ({ body: { t: 'never', n } })))]),
    send('a batch over 256 KB', [batch([0, 1, 2].map(() => ({ body: { $repeat: ['never:', 'x', 100_000] }, contentType: 'text' })))]),
    send('an empty batch', [batch([])]),
    send('a negative delay', [one({ t: 'never', n: 1 }, { delaySeconds: -1 })]),
    send('a delay over 12 h', [one({ t: 'never', n: 2 }, { delaySeconds: 43_201 })]),
    send('a fractional delay', [one({ t: 'never', n: 3 }, { delaySeconds: 1.5 })]),
    send('a batch with a bad delay', [batch([{ body: { t: 'never', n: 4 } }], { delaySeconds: -1 })]),
    send('a batch message with a bad type', [batch([{ body: 5, contentType: 'text' }])]),
    settled('the 128 KB message arrives', 'big', 1),
    send('one of each contentType', [
      one('types:text', { contentType: 'text' }),
      one({ $bytes: 'types:buffer' }, { contentType: 'bytes' }),
      one({ $u8: 'types:bytes' }, { contentType: 'bytes' }),
      one({ t: 'types', n: 'json', list: [1, 'two', null] }, { contentType: 'json' }),
      one({ t: 'types', n: 'v8', at: { $date: Date.UTC(2026, 0, 1) } }),
      one(
        {
          $map: [
            ['t', 'types'],
            ['n', 'map'],
          ],
        },
        { contentType: 'v8' },
      ),
    ]),
    settled('each body as it was sent (the ArrayBuffer one refused), in batches of at most 3', 'types', 5, 8000, batchesAsPartition),
    send('bytes from a Uint8Array view', [one({ $u8: 'view:1' }, { contentType: 'bytes' })]),
    settled('arrives as an ArrayBuffer', 'view', 1),
    send('explicit calls over batch-wide ones', [
      batch([
        { body: { t: 'prec', n: 1, act: ['retry', 'ack'], post: ['retryAll'] } },
        { body: { t: 'prec', n: 2, act: ['ack'] } },
        { body: { t: 'prec', n: 3 } },
      ]),
    ]),
    settled('retryAll retries every message, explicitly acked ones too', 'prec', 6),
    send('ackAll first, then a retry', [
      batch([
        { body: { t: 'prec2', n: 1, pre: ['ackAll'], act: ['retry'] } },
        { body: { t: 'prec2', n: 2, act: ['ack', 'retry'] } },
        { body: { t: 'prec2', n: 3 } },
      ]),
    ]),
    settled('a retry after ackAll or after an ack is ignored', 'prec2', 3),
    send('retryAll first, then an ack', [batch([{ body: { t: 'prec3', n: 1, pre: ['retryAll'], act: ['ack'] } }, { body: { t: 'prec3', n: 2 } }])]),
    settled('an ack after retryAll changes nothing', 'prec3', 4),
    send('a retry, then ackAll', [batch([{ body: { t: 'prec4', n: 1, act: ['retry'], post: ['ackAll'] } }, { body: { t: 'prec4', n: 2 } }])]),
    settled('the retried message comes back', 'prec4', 3),
    send('a handler that throws', [batch([{ body: { t: 'throw', n: 1, act: ['ack'], post: ['throw'] } }, { body: { t: 'throw', n: 2 } }])]),
    settled('a throw retries the whole batch, acked ones too', 'throw', 4),
    send('a message always retried', [one({ t: 'dlq', n: 1, always: 'retry' })]),
    settled('after max_retries it reaches the dead-letter queue', 'dlq', 4, 12_000),
    send('a delayed send', [one({ t: 'delay', n: 1 }, { delaySeconds: 1 })]),
    settled('it arrives', 'delay', 1),
    send('a producer with delivery_delay', [one({ t: 'slow', n: 1 })], true),
    settled('its message arrives', 'slow', 1),
    send('a retry with delaySeconds', [one({ t: 'rdelay', n: 1, act: ['retry:1'] })]),
    settled('it comes back', 'rdelay', 2),
    { kind: 'wait', name: 'let late deliveries land', ms: 2500 },
    ...SCENARIOS.map((t): Step => ({ ...seen(t, TIMED.has(t) ? batchesAsPartition : undefined), name: `nothing more for ${t}` })),
    seen('never'),
  ],
};
