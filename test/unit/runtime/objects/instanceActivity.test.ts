// What runs on an instance: events counted until they end (a shutdown's drain waits for the last),
// background work until it settles (a failure logged, never thrown), and quiet waiters let go only
// when the host says the instance is quiet.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InstanceActivity } from '../../../../src/runtime/objects/instanceActivity';

function activity(): { work: InstanceActivity; errors: unknown[]; settles: () => number } {
  const errors: unknown[] = [];
  let settles = 0;
  return {
    work: new InstanceActivity(
      (error) => errors.push(error),
      () => settles++,
    ),
    errors,
    settles: () => settles,
  };
}

describe('instance activity', () => {
  it('counts events until they end, and drains when the last one does', async () => {
    const { work } = activity();
    work.begin();
    work.begin();
    assert.equal(work.events, 2);
    assert.equal(work.settled, false);
    let drained = false;
    void work.whenDrained().then(() => (drained = true));
    work.end();
    await Promise.resolve();
    assert.equal(drained, false, 'one event still runs');
    work.end();
    await Promise.resolve();
    assert.equal(drained, true);
    assert.equal(work.settled, true);
  });

  it('keeps background work until it settles, logging a failure and telling the host each time', async () => {
    const { work, errors, settles } = activity();
    let finish!: () => void;
    const failure = new Error('waitUntil failed');
    work.track(new Promise<void>((resolve) => (finish = resolve)));
    work.track(Promise.reject(failure));
    assert.equal(work.backgroundCount, 2);
    assert.equal(work.settled, false);
    const allSettled = work.backgroundSettled();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(errors, [failure]);
    assert.equal(work.backgroundCount, 1);
    assert.equal(settles(), 1);
    finish();
    await allSettled;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(work.backgroundCount, 0);
    assert.equal(settles(), 2);
    assert.equal(work.settled, true);
  });

  it('lets quiet waiters go at once when quiet now, or at the next quiet', async () => {
    const { work } = activity();
    await work.whenQuiet(true);
    assert.equal(work.awaitingQuiet, false);
    let quiet = 0;
    void work.whenQuiet(false).then(() => quiet++);
    void work.whenQuiet(false).then(() => quiet++);
    assert.equal(work.awaitingQuiet, true);
    await Promise.resolve();
    assert.equal(quiet, 0);
    work.quiet();
    await Promise.resolve();
    assert.equal(quiet, 2);
    assert.equal(work.awaitingQuiet, false);
  });
});
