// Reads of the admin API reconciled with the live feed: whichever of a read and a message comes
// first, the explorer ends with the same thing. Reads end when the test resolves them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliverySummary } from '../../../../src/core/contract/deliveries';
import type { CaptureSummary } from '../../../../src/core/contract/sink';
import { FeedReads } from '../../../../src/vscode/views/feedReads';

/** A read the test ends. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const delivery = (id: string) => ({ id }) as DeliverySummary;
const capture = (id: string) => ({ id }) as CaptureSummary;

describe('reads reconciled with the live feed', () => {
  it('drops a read started before a new connection or a reload', () => {
    const reads = new FeedReads();
    const first = reads.current;
    reads.connected();
    assert.equal(reads.isCurrent(first), false);
    const { generation } = reads.readingLists();
    assert.equal(reads.isCurrent(generation), true);
    reads.readingLists();
    assert.equal(reads.isCurrent(generation), false);
  });

  it('keeps what the feed says while the lists are read, and nothing once they are', () => {
    const reads = new FeedReads();
    reads.deliveryArrived(delivery('before'));
    const { arrived } = reads.readingLists();
    reads.deliveryArrived(delivery('d1'));
    reads.captureArrived(capture('c1'), 3);
    reads.captureArrived(capture('c2'), 1);
    reads.instanceArrived('NS/a');
    reads.listsRead();
    reads.deliveryArrived(delivery('after'));
    reads.instanceArrived('NS/b');
    assert.deepEqual(
      [arrived.deliveries.map((d) => d.id), arrived.captures.map((c) => c.id), arrived.dropped, [...arrived.instances]],
      [['d1'], ['c1', 'c2'], 3, ['NS/a']],
    );
  });

  it('reads details once more for an instance a message changed during the read', async () => {
    const reads = new FeedReads();
    const read = deferred();
    const raced: string[][] = [];
    reads.racedDetails('NS/a');
    const done = reads.readDetails(
      ['NS/a', 'NS/b'],
      () => read.promise,
      (keys) => raced.push(keys),
    );
    assert.equal(reads.detailsRead('NS/a'), done, 'a second ask joins the read under way');
    reads.racedDetails('NS/b');
    read.resolve();
    await done;
    assert.deepEqual(raced, [['NS/b']], 'only the message during the read counts');
    assert.equal(reads.detailsRead('NS/b'), undefined);
  });

  it('ends a failed details read as any other, and forgets it', async () => {
    const reads = new FeedReads();
    const read = deferred();
    const raced: string[][] = [];
    const done = reads.readDetails(
      ['NS/a'],
      () => read.promise,
      (keys) => raced.push(keys),
    );
    read.reject(new Error('the admin API is gone'));
    await done;
    assert.deepEqual([raced, reads.detailsRead('NS/a')], [[[]], undefined]);
  });

  it('joins an instance’s events read under way, and starts a new one after it ended', async () => {
    const reads = new FeedReads();
    const read = deferred();
    let started = 0;
    const start = () => (started++, read.promise);
    const first = reads.readEvents('NS/a', start);
    assert.equal(reads.readEvents('NS/a', start), first);
    read.resolve();
    await first;
    await reads.readEvents('NS/a', async () => void started++);
    assert.equal(started, 2);
  });
});
