import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../../../../src/core/log';
import { QueueBroker, type ConsumerSettings, type Deliver, type MessageBatch } from '../../../../../src/core/runtime/bindings/queues';
import { ManualTime, settle, storeAt, tempDir } from './helpers';

const consumer = (over: Partial<ConsumerSettings> = {}): ConsumerSettings => ({
  queue: 'jobs',
  maxBatchSize: 3,
  maxBatchTimeoutMs: 5000,
  maxRetries: 2,
  retryDelaySeconds: 0,
  ...over,
});

async function brokerAt(dir: string, deliver: Deliver, time = new ManualTime(), consumers = [consumer()]) {
  const broker = new QueueBroker({ store: await storeAt(dir, QueueBroker.schema), consumers, deliver, logger: nullLogger, now: time.clock, timers: time });
  await broker.start();
  return { broker, time };
}

describe('Queues', () => {
  it('delivers a full batch at once and a partial one after max_batch_timeout', async () => {
    const batches: unknown[][] = [];
    const { broker, time } = await brokerAt(tempDir('q'), async (batch) => void batches.push(batch.messages.map((m) => m.body)));
    const jobs = broker.producer('jobs');
    await jobs.sendBatch([{ body: 1 }, { body: { two: 2 }, contentType: 'json' }, { body: 'three', contentType: 'text' }, { body: 4 }]);
    await settle(() => batches.length === 1 && time.timerCount === 1);
    assert.deepEqual(batches[0], [1, { two: 2 }, 'three']);
    time.advance(4999);
    await settle(() => time.timerCount === 1);
    assert.equal(batches.length, 1, 'the fourth message waits for the batch timeout');
    time.advance(1);
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
    const { broker, time } = await brokerAt(tempDir('q'), deliver, new ManualTime(), [consumer({ maxBatchSize: 1, deadLetterQueue: 'dead' }), consumer({ queue: 'dead', maxBatchSize: 1 })]);
    await broker.producer('jobs').send('x');
    await settle(() => seen.length === 4);
    assert.deepEqual(seen, [
      { queue: 'jobs', attempts: 1 },
      { queue: 'jobs', attempts: 2 },
      { queue: 'jobs', attempts: 3 },
      { queue: 'dead', attempts: 1 },
    ]);
    time.advance(0);
    await broker.stop();
  });

  it('honours per-message ack and retry with delaySeconds, and retries a batch whose handler throws', async () => {
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
    const { broker, time } = await brokerAt(tempDir('q'), deliver, new ManualTime(), [consumer({ maxBatchSize: 2 })]);
    await broker.producer('jobs').sendBatch([{ body: 'a' }, { body: 'b' }]);
    await settle(() => seen.length === 2 && time.timerCount === 1);
    assert.deepEqual(seen, ['a#1', 'b#1']);
    // b alone is less than a batch: it waits the batch timeout.
    time.advance(5000);
    await settle(() => seen.length === 3 && time.timerCount === 1);
    assert.deepEqual(seen, ['a#1', 'b#1', 'b#2'], 'a was acked before the throw; b was retried');
    // Retried with 10 s of delay, then the batch timeout again.
    time.advance(14_999);
    await settle(() => time.timerCount === 1);
    assert.equal(seen.length, 3);
    time.advance(1);
    await settle(() => seen.length === 4);
    assert.equal(seen[3], 'b#3');
    await broker.stop();
  });

  it('delivers after a restart what was sent before a crash', async () => {
    const dir = tempDir('q');
    const never: Deliver = () => new Promise(() => undefined);
    const { broker } = await brokerAt(dir, never, new ManualTime(), []);
    await broker.producer('jobs').send({ id: 7 });
    // The process dies with the message unconsumed; a new broker opens the same backlog.
    const got: unknown[] = [];
    const time = new ManualTime();
    const { broker: again } = await brokerAt(dir, async (batch) => void got.push(...batch.messages.map((m) => m.body)), time);
    time.advance(5000);
    await settle(() => got.length === 1);
    assert.deepEqual(got, [{ id: 7 }]);
    await again.stop();
  });

  it('refuses oversized messages and batches with one line', async () => {
    const { broker } = await brokerAt(tempDir('q'), async () => undefined);
    await assert.rejects(broker.producer('jobs').send('x'.repeat(128_001), { contentType: 'text' }), /Queue send failed: message length of 128001 bytes exceeds limit of 128000/);
    await assert.rejects(broker.producer('jobs').sendBatch(Array.from({ length: 101 }, () => ({ body: 1 }))), /batch message count of 101 exceeds limit of 100/);
    await assert.rejects(broker.producer('jobs').send(1, { contentType: 'text' }), TypeError);
    await broker.stop();
  });
});
