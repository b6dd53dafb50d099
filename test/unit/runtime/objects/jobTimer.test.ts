// The agent's job timer on the manual clock: the due jobs run once at their time (at once for a
// time past), arming again replaces the timer, and an armed timer is what keeps an instance awake.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JobTimer } from '../../../../src/runtime/objects/jobTimer';
import { ManualTimers } from '../../helpers/manualTimers';

function jobTimer(): { timers: ManualTimers; jobs: JobTimer; runs: () => number } {
  const timers = new ManualTimers();
  let runs = 0;
  return { timers, jobs: new JobTimer(timers, () => runs++), runs: () => runs };
}

describe('job timer', () => {
  it('runs the due jobs once, at their time', async () => {
    const { timers, jobs, runs } = jobTimer();
    jobs.arm(timers.now() + 500);
    assert.equal(jobs.armed, true);
    assert.equal(jobs.dueNow(), false);
    await timers.advance(499);
    assert.equal(runs(), 0);
    await timers.advance(1);
    assert.equal(runs(), 1);
    assert.equal(jobs.armed, false);
    await timers.advance(5000);
    assert.equal(runs(), 1);
  });

  it('counts a job whose time has passed as due now, and runs it at once', async () => {
    const { timers, jobs, runs } = jobTimer();
    jobs.arm(timers.now() - 100);
    assert.equal(jobs.dueNow(), true);
    await timers.advance(0);
    assert.equal(runs(), 1);
    assert.equal(jobs.dueNow(), false);
  });

  it('replaces its timer when armed again, and disarms for no job', async () => {
    const { timers, jobs, runs } = jobTimer();
    jobs.arm(timers.now() + 500);
    jobs.arm(timers.now() + 1000);
    assert.equal(timers.scheduled, 1);
    await timers.advance(500);
    assert.equal(runs(), 0, 'the first time was replaced');
    await timers.advance(500);
    assert.equal(runs(), 1);
    jobs.arm(timers.now() + 500);
    jobs.arm(undefined);
    assert.equal(jobs.armed, false);
    assert.equal(timers.scheduled, 0);
  });

  it('stops: nothing runs and nothing is due', async () => {
    const { timers, jobs, runs } = jobTimer();
    jobs.arm(timers.now());
    jobs.stop();
    assert.equal(jobs.dueNow(), false);
    await timers.advance(1000);
    assert.equal(runs(), 0);
  });
});
