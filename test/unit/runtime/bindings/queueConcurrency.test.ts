// Queues' max_concurrency: batches in flight at once up to the limit, no message in two batches,
// and the snapshot's in-flight count is every running batch's messages.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../../../src/core/log';
import { QueueBroker, type ConsumerSettings, type MessageBatch } from '../../../../src/runtime/bindings/queues';
import { manualTimers, settle, storeAt, tempDir } from './helpers';

/** A broker whose handler holds every batch until the test releases it. */
async function heldBroker(maxConcurrency: number | undefined) {
  const consumer: ConsumerSettings = {
    queue: 'jobs',
    maxBatchSize: 2,
    maxBatchTimeoutMs: 5000,
    maxRetries: 2,
    retryDelaySeconds: 0,
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
  };
  const held: { batch: MessageBatch; release: () => void }[] = [];
  const time = manualTimers();
  const broker = new QueueBroker({
    store: await storeAt(tempDir('qc'), QueueBroker.schema),
    consumers: [consumer],
    deliver: (batch) => new Promise<void>((release) => held.push({ batch, release })),
    logger: nullLogger,
    now: time.now,
    timers: time,
  });
  await broker.start();
  return { broker, held, time };
}

const bodies = (held: { batch: MessageBatch }[]) => held.map((h) => h.batch.messages.map((m) => m.body));

describe('Queues max_concurrency', () => {
  it('runs batches side by side up to max_concurrency, each message in one batch', async () => {
    const { broker, held, time } = await heldBroker(2);
    await broker.producer('jobs').sendBatch([1, 2, 3, 4, 5, 6].map((body) => ({ body })));
    await settle(() => held.length === 2);
    assert.deepEqual(bodies(held), [
      [1, 2],
      [3, 4],
    ]);
    assert.equal((await broker.snapshot('jobs', 10)).inFlight, 4);
    // 5 and 6 form a full batch, but two are in flight already: it waits for one to end, even past
    // the batch timeout, when a batch goes whether full or not.
    await time.advance(5000);
    assert.equal(held.length, 2);
    held[1]!.release();
    await settle(() => held.length === 3);
    assert.deepEqual(bodies(held)[2], [5, 6]);
    held[0]!.release();
    held[2]!.release();
    await settle(async () => (await broker.snapshot('jobs', 10)).inFlight === 0 && (await broker.backlog('jobs')) === 0);
    await broker.stop();
  });

  it('keeps one batch in flight with max_concurrency 1, and scales past 2 when unset', async () => {
    const one = await heldBroker(1);
    await one.broker.producer('jobs').sendBatch([1, 2, 3, 4].map((body) => ({ body })));
    await settle(() => one.held.length === 1);
    await one.time.advance(5000);
    assert.equal(one.held.length, 1);
    assert.equal((await one.broker.snapshot('jobs', 10)).inFlight, 2);
    one.held[0]!.release();
    await settle(() => one.held.length === 2);
    one.held[1]!.release();
    await one.broker.stop();

    const unset = await heldBroker(undefined);
    await unset.broker.producer('jobs').sendBatch([1, 2, 3, 4, 5, 6].map((body) => ({ body })));
    await settle(() => unset.held.length === 3);
    assert.equal((await unset.broker.snapshot('jobs', 10)).inFlight, 6);
    for (const h of unset.held) h.release();
    await unset.broker.stop();
  });
});
