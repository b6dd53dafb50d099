// The idle spell on the manual clock: one timer however often the spell starts again, idle once
// the spell has passed with nothing since, never while something runs, never for an endless idle time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IdleTimer } from '../../../../src/runtime/objects/idleTimer';
import { ManualTimers } from '../../helpers/manualTimers';

function idleTimer(): { timers: ManualTimers; idle: IdleTimer; fired: () => number } {
  const timers = new ManualTimers();
  let fired = 0;
  return { timers, idle: new IdleTimer(timers, () => fired++), fired: () => fired };
}

describe('idle timer', () => {
  it('is idle once the spell has passed, and only once', async () => {
    const { timers, idle, fired } = idleTimer();
    idle.start(1000);
    await timers.advance(999);
    assert.equal(fired(), 0);
    await timers.advance(1);
    assert.equal(fired(), 1);
    await timers.advance(10_000);
    assert.equal(fired(), 1);
  });

  it('moves the spell’s end when it starts again, with the one timer it has', async () => {
    const { timers, idle, fired } = idleTimer();
    idle.start(1000);
    await timers.advance(600);
    idle.start(1000);
    idle.start(1000);
    assert.equal(timers.scheduled, 1, 'one timer for three starts');
    await timers.advance(400);
    assert.equal(fired(), 0, 'the first spell’s end has moved on');
    await timers.advance(599);
    assert.equal(fired(), 0);
    await timers.advance(1);
    assert.equal(fired(), 1);
  });

  it('is never idle while held, and counts a new spell from its next start', async () => {
    const { timers, idle, fired } = idleTimer();
    idle.start(1000);
    idle.hold();
    await timers.advance(5000);
    assert.equal(fired(), 0);
    assert.equal(timers.scheduled, 0, 'the due timer found the spell held and did not wait again');
    idle.start(1000);
    await timers.advance(1000);
    assert.equal(fired(), 1);
  });

  it('arms no timer for an endless idle time', async () => {
    const { timers, idle, fired } = idleTimer();
    idle.start(Number.POSITIVE_INFINITY);
    assert.equal(timers.scheduled, 0);
    await timers.advance(10 ** 9);
    assert.equal(fired(), 0);
  });

  it('stops its timer when stopped', async () => {
    const { timers, idle, fired } = idleTimer();
    idle.start(1000);
    idle.stop();
    assert.equal(timers.scheduled, 0);
    await timers.advance(2000);
    assert.equal(fired(), 0);
  });
});
