// The explorer's read of a queue (QueueBroker.snapshot): the batch in flight is counted while the
// worker's queue() handles it, and no longer once its verdicts are committed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../../../src/core/log';
import { QueueBroker, type Deliver } from '../../../../src/runtime/bindings/queues';
import { manualTimers, settle, storeAt, tempDir } from './helpers';

describe('QueueBroker.snapshot', () => {
  it('counts the batch in flight while queue() runs, and retried and delayed messages after', async () => {
    let release: () => void = () => undefined;
    const handling = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const deliver: Deliver = async (batch) => {
      started = true;
      await handling;
      batch.retryAll({ delaySeconds: 60 });
    };
    const time = manualTimers();
    // One batch at a time, so the third message waits (queueConcurrency.test.ts counts several).
    const consumers = [{ queue: 'jobs', maxBatchSize: 2, maxBatchTimeoutMs: 0, maxRetries: 3, retryDelaySeconds: 0, maxConcurrency: 1 }];
    const broker = new QueueBroker({
      store: await storeAt(tempDir('qs'), QueueBroker.schema),
      consumers,
      deliver,
      logger: nullLogger,
      now: time.now,
      timers: time,
    });
    await broker.start();
    await broker.producer('jobs').sendBatch([{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    await settle(() => started);
    const during = await broker.snapshot('jobs', 10);
    assert.deepEqual([during.backlog, during.inFlight, during.retried, during.delayed], [3, 2, 0, 0]);
    release();
    // The third message follows in a batch of its own, retried the same way.
    await settle(async () => (await broker.snapshot('jobs', 10)).retried === 3);
    const after = await broker.snapshot('jobs', 2);
    assert.deepEqual([after.backlog, after.delayed, after.retried, after.inFlight, after.more], [3, 3, 3, 0, true]);
    assert.deepEqual(
      after.messages.map((m) => m.attempts),
      [2, 2],
    );
    assert.equal((await broker.snapshot('jobs', 2, after.messages[1]!.seq)).messages.length, 1, 'the page after the cursor');
    await time.advance(0);
    await broker.stop();
  });
});
