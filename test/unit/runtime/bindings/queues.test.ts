import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../../../src/core/log';
import { QueueBroker, type ConsumerSettings, type Deliver, type MessageBatch } from '../../../../src/runtime/bindings/queues';
import { manualTimers, settle, storeAt, tempDir } from './helpers';

const consumer = (over: Partial<ConsumerSettings> = {}): ConsumerSettings => ({
  queue: 'jobs',
  maxBatchSize: 3,
  maxBatchTimeoutMs: 5000,
  maxRetries: 2,
  retryDelaySeconds: 0,
  ...over,
});

async function brokerAt(dir: string, deliver: Deliver, time = manualTimers(), consumers = [consumer()]) {
  const broker = new QueueBroker({ store: await storeAt(dir, QueueBroker.schema), consumers, deliver, logger: nullLogger, now: time.now, timers: time });
  await broker.start();
  return { broker, time };
}

describe('Queues', () => {
  it('delivers a full batch at once and a partial one after max_batch_timeout', async () => {
    const batches: unknown[][] = [];
    const { broker, time } = await brokerAt(tempDir('q'), async (batch) => void batches.push(batch.messages.map((m) => m.body)));
    const jobs = broker.producer('jobs');
    await jobs.sendBatch([{ body: 1 }, { body: { two: 2 }, contentType: 'json' }, { body: 'three', contentType: 'text' }, { body: 4 }]);
    await settle(() => batches.length === 1 && time.scheduled === 1);
    assert.deepEqual(batches[0], [1, { two: 2 }, 'three']);
    await time.advance(4999);
    await settle(() => time.scheduled === 1);
    assert.equal(batches.length, 1, 'the fourth message waits for the batch timeout');
    await time.advance(1);
    await settle(() => batches.length === 2);
    assert.deepEqual(batches[1], [4]);
    await settle(async () => (await broker.backlog('jobs')) === 0);
    await broker.stop();
  });

  it('retries what the handler retries, then moves it to the dead-letter queue after max_retries', async () => {
    const seen: { queue: string; attempts: number }[] = [];
    const deliver: Deliver = async (batch: MessageBatch) => {
      for (const m of batch.messages) seen.push({ queue: batch.queue, attempts: m.attempts });
      if (batch.queue === 'jobs') batch.retryAll();
    };
    const { broker, time } = await brokerAt(tempDir('q'), deliver, manualTimers(), [
      consumer({ maxBatchSize: 1, deadLetterQueue: 'dead' }),
      consumer({ queue: 'dead', maxBatchSize: 1 }),
    ]);
    await broker.producer('jobs').send('x');
    await settle(() => seen.length === 4);
    assert.deepEqual(seen, [
      { queue: 'jobs', attempts: 1 },
      { queue: 'jobs', attempts: 2 },
      { queue: 'jobs', attempts: 3 },
      { queue: 'dead', attempts: 1 },
    ]);
    await time.advance(0);
    await broker.stop();
  });

  it('retries a whole batch whose handler throws (acked ones too, as Miniflare), then a message retried with delaySeconds', async () => {
    const seen: string[] = [];
    let throwOnce = true;
    const deliver: Deliver = async (batch) => {
      for (const m of batch.messages) seen.push(`${String(m.body)}#${m.attempts}`);
      if (throwOnce) {
        throwOnce = false;
        batch.messages[0]!.ack();
        throw new Error('boom');
      }
      for (const m of batch.messages) if (m.body === 'b' && m.attempts < 3) m.retry({ delaySeconds: 10 });
    };
    const { broker, time } = await brokerAt(tempDir('q'), deliver, manualTimers(), [consumer({ maxBatchSize: 2 })]);
    await broker.producer('jobs').sendBatch([{ body: 'a' }, { body: 'b' }]);
    await settle(() => seen.length === 4 && time.scheduled === 1);
    assert.deepEqual(seen, ['a#1', 'b#1', 'a#2', 'b#2'], 'the throw retried both at once, a full batch again');
    // b is retried with 10 s of delay, then waits the batch timeout alone.
    await time.advance(14_999);
    await settle(() => time.scheduled === 1);
    assert.equal(seen.length, 4);
    await time.advance(1);
    await settle(() => seen.length === 5);
    assert.equal(seen[4], 'b#3');
    await broker.stop();
  });

  it("applies workerd's precedence: retryAll retries acked messages, a retry after ackAll or after an ack is ignored", async () => {
    const seen: string[] = [];
    const deliver: Deliver = async (batch) => {
      for (const m of batch.messages) seen.push(`${String(m.body)}#${m.attempts}`);
      if (batch.messages[0]!.attempts > 1) return;
      const [a, b, c] = batch.messages;
      if (a!.body === 'a') {
        b!.ack();
        batch.retryAll();
        return;
      }
      batch.ackAll();
      a!.retry();
      c!.ack();
      c!.retry();
    };
    const { broker } = await brokerAt(tempDir('q'), deliver);
    await broker.producer('jobs').sendBatch([{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    await settle(() => seen.length === 6);
    assert.deepEqual(seen, ['a#1', 'b#1', 'c#1', 'a#2', 'b#2', 'c#2']);
    await broker.producer('jobs').sendBatch([{ body: 'x' }, { body: 'y' }, { body: 'z' }]);
    await settle(async () => seen.length === 9 && (await broker.backlog('jobs')) === 0);
    await broker.stop();
    assert.deepEqual(seen.slice(6), ['x#1', 'y#1', 'z#1'], 'nothing of the second batch came back');
  });

  it("refuses oversized messages and batches with workerd's error, the reason in the log", async () => {
    const warnings: string[] = [];
    const logger = { ...nullLogger, warn: (line: string) => void warnings.push(line) };
    const broker = new QueueBroker({
      store: await storeAt(tempDir('q'), QueueBroker.schema),
      consumers: [consumer()],
      deliver: async () => undefined,
      logger,
      now: Date.now,
      timers: manualTimers(),
    });
    const jobs = broker.producer('jobs');
    await assert.rejects(jobs.send('x'.repeat(128_001), { contentType: 'text' }), { message: 'Unknown Internal Error (15000)' });
    await assert.rejects(jobs.sendBatch(Array.from({ length: 101 }, () => ({ body: 1 }))), { message: 'Unknown Internal Error (15000)' });
    await assert.rejects(jobs.send(1, { delaySeconds: -1 }), { message: 'Unknown Internal Error (15000)' });
    assert.deepEqual(warnings, [
      '[queues] send to "jobs" refused: message length of 128001 bytes exceeds limit of 128000',
      '[queues] sendBatch to "jobs" refused: batch message count of 101 exceeds limit of 100',
      '[queues] send to "jobs" refused: message delay -1 is invalid: delaySeconds must be an integer from 0 to 86400',
    ]);
    await assert.rejects(jobs.send(1, { contentType: 'text' }), {
      name: 'TypeError',
      message: 'Content Type "text" requires a value of type string, but received: number',
    });
    await assert.rejects(jobs.send(new ArrayBuffer(1), { contentType: 'bytes' }), {
      name: 'TypeError',
      message: 'Content Type "bytes" requires a value of type ArrayBufferView, but received: object',
    });
    await assert.rejects(jobs.sendBatch([]), { name: 'TypeError', message: 'sendBatch() requires at least one message' });
    assert.equal(await broker.backlog('jobs'), 0, 'nothing refused was queued');
    await broker.stop();
  });

  it("answers a send with the queue's backlog before it", async () => {
    const { broker } = await brokerAt(tempDir('q'), async () => undefined);
    const jobs = broker.producer('jobs');
    assert.deepEqual(await jobs.send('ab', { contentType: 'text' }), { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } });
    const second = await jobs.send('cde', { contentType: 'text' });
    assert.equal(second.metadata.metrics.backlogCount, 1);
    assert.equal(second.metadata.metrics.backlogBytes, 2);
    assert.ok(second.metadata.metrics.oldestMessageTimestamp instanceof Date);
    await broker.stop();
  });
});
