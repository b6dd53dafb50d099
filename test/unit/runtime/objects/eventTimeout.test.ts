// A hibernation handler's event timeout on the manual clock: a handler that outruns it resets the
// object once and its wait fails with workerd's error; one that settles in time cancels the timer;
// without a timeout nothing is armed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_TIMEOUT_MESSAGE, withEventTimeout } from '../../../../src/runtime/objects/eventTimeout';
import { ManualTimers } from '../../helpers/manualTimers';

describe('hibernation event timeout', () => {
  it('resets once when the handler outruns it, and fails the wait with workerd’s error', async () => {
    const timers = new ManualTimers();
    const resets: Error[] = [];
    const wait = withEventTimeout(timers, 100, new Promise(() => undefined), (error) => resets.push(error));
    const outcome = wait.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await timers.advance(99);
    assert.equal(resets.length, 0);
    await timers.advance(1);
    assert.equal(await outcome, EVENT_TIMEOUT_MESSAGE);
    await timers.advance(10_000);
    assert.deepEqual(
      resets.map((error) => error.message),
      [EVENT_TIMEOUT_MESSAGE],
    );
  });

  it('cancels its timer when the handler settles in time, passing on what it did', async () => {
    const timers = new ManualTimers();
    const resets: Error[] = [];
    let finish!: () => void;
    const wait = withEventTimeout(timers, 100, new Promise<void>((resolve) => (finish = resolve)), (error) => resets.push(error));
    await timers.advance(50);
    finish();
    await wait;
    assert.equal(timers.scheduled, 0);
    await assert.rejects(
      withEventTimeout(timers, 100, Promise.reject(new Error('handler threw')), (error) => resets.push(error)),
      { message: 'handler threw' },
    );
    assert.equal(timers.scheduled, 0);
    await timers.advance(1000);
    assert.equal(resets.length, 0);
  });

  it('arms nothing without a timeout, and waits as long as the handler takes', async () => {
    const timers = new ManualTimers();
    let finish!: () => void;
    let done = false;
    const wait = withEventTimeout(timers, null, new Promise<void>((resolve) => (finish = resolve)), () => assert.fail('no timeout'));
    void wait.then(() => (done = true));
    assert.equal(timers.scheduled, 0);
    await timers.advance(10 ** 6);
    assert.equal(done, false);
    finish();
    await wait;
  });
});
