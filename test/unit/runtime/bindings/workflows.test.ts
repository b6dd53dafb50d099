// Workflows on real sql.js files with a manual clock: steps memoized (a restart resumes after the
// last completed step without running it again), retries with backoff, NonRetryableError,
// sleep, waitForEvent/sendEvent with events sent before the wait, pause/resume/terminate, and the
// binding's id checks and messages (miniflare's).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkflowBinding } from '../../../../src/runtime/bindings/workflows/workflowBinding';
import { NonRetryableError } from '../../../../src/runtime/bindings/workflows/workflowErrors';
import type { WorkflowStep } from '../../../../src/runtime/bindings/workflows/workflowStep';
import { ManualTimers, settle } from '../../helpers/manualTimers';
import { testPlatform } from '../../helpers/platform';

const calls: string[] = [];
let flaky = 0;

class Pipeline {
  async run(event: { payload: { n: number; fatal?: boolean } }, step: WorkflowStep): Promise<unknown> {
    const a = await step.do('first', async () => {
      calls.push('first');
      return event.payload.n * 2;
    });
    const b = await step.do('flaky', { retries: { limit: 3, delay: '1 second', backoff: 'exponential' } }, async () => {
      calls.push('flaky');
      if (event.payload.fatal) throw new NonRetryableError('stop now');
      if (flaky-- > 0) throw new Error('try again');
      return a + 1;
    });
    await step.sleep('nap', '1 minute');
    const approval = await step.waitForEvent<{ ok: boolean }>('approval', { type: 'approve', timeout: '1 hour' });
    return await step.do('last', async () => {
      calls.push('last');
      return { b, ok: approval.payload.ok };
    });
  }
}

async function binding(dir: string, timers: ManualTimers): Promise<WorkflowBinding> {
  const wf = new WorkflowBinding(await testPlatform({ timers }), 'pipeline', 'Pipeline', Pipeline, () => ({}), dir);
  timers.quiescent = async () => {
    await settle();
    await wf.settled();
  };
  return wf;
}

describe('workflows', () => {
  it('runs steps once, retries with backoff, sleeps, waits for an event, and completes with the output', async () => {
    calls.length = 0;
    flaky = 2;
    const timers = new ManualTimers();
    const wf = await binding(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-wf-')), timers);
    const instance = await wf.create({ id: 'order-1', params: { n: 20 } });
    await timers.advance(0);
    assert.deepEqual(calls, ['first', 'flaky']);
    await timers.advance(1000);
    assert.deepEqual(calls, ['first', 'flaky', 'flaky'], 'the first retry after 1 s');
    await timers.advance(2000);
    assert.deepEqual(calls, ['first', 'flaky', 'flaky', 'flaky'], 'the second after 2 s more');
    assert.equal((await instance.status()).status, 'running', 'parked on a sleep: miniflare says running');
    await instance.sendEvent({ type: 'approve', payload: { ok: true } });
    await timers.advance(60_000);
    const status = await instance.status();
    assert.equal(status.status, 'complete');
    assert.deepEqual(status.output, { b: 41, ok: true });
    assert.deepEqual(status.__LOCAL_DEV_STEP_OUTPUTS.slice(0, 2), [40, 41]);
    assert.deepEqual(calls, ['first', 'flaky', 'flaky', 'flaky', 'last']);
    await wf.shutdown();
  });

  it('resumes after a restart without running completed steps again, sleeping only what is left', async () => {
    calls.length = 0;
    flaky = 0;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-wf-restart-'));
    const timers = new ManualTimers();
    const first = await binding(dir, timers);
    await first.create({ id: 'order-2', params: { n: 1 } });
    await timers.advance(30_000);
    assert.deepEqual(calls, ['first', 'flaky']);
    await first.shutdown();

    const second = await binding(dir, timers);
    await second.resumeAll();
    await timers.advance(29_999);
    await (await second.get('order-2')).sendEvent({ type: 'approve', payload: { ok: false } });
    await second.settled();
    assert.equal((await (await second.get('order-2')).status()).status, 'running', 'still sleeping');
    await timers.advance(1);
    const status = await (await second.get('order-2')).status();
    assert.equal(status.status, 'complete');
    assert.deepEqual(status.output, { b: 3, ok: false });
    assert.deepEqual(calls, ['first', 'flaky', 'last'], 'no completed step ran twice');
    await second.shutdown();
  });

  it("errors on a NonRetryableError without retrying, with miniflare's fatal error", async () => {
    calls.length = 0;
    const timers = new ManualTimers();
    const wf = await binding(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-wf-')), timers);
    const instance = await wf.create({ params: { n: 1, fatal: true } });
    await timers.advance(10_000);
    const status = await instance.status();
    assert.equal(status.status, 'errored');
    assert.equal(status.error?.name, 'WorkflowFatalError');
    assert.deepEqual(calls, ['first', 'flaky']);
    await assert.rejects(instance.terminate(), { message: 'WorkflowError: (instance.cannot_terminate) Cannot terminate instance since its on a finite state' });
    await wf.shutdown();
  });

  it('pauses at the next step, resumes by replaying, and terminates', async () => {
    calls.length = 0;
    flaky = 0;
    const timers = new ManualTimers();
    const wf = await binding(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-wf-')), timers);
    const instance = await wf.create({ id: 'p', params: { n: 5 } });
    await timers.advance(10_000);
    await instance.pause();
    assert.equal((await instance.status()).status, 'paused');
    await timers.advance(120_000);
    assert.equal((await instance.status()).status, 'paused');
    await instance.resume();
    await wf.settled();
    assert.equal((await instance.status()).status, 'running');
    await instance.terminate();
    assert.equal((await instance.status()).status, 'terminated');
    assert.deepEqual(calls, ['first', 'flaky'], 'the replay after resume ran nothing again');
    await wf.shutdown();
  });

  it("refuses invalid ids and unknown instances with miniflare's messages", async () => {
    const timers = new ManualTimers();
    const wf = await binding(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-wf-')), timers);
    await assert.rejects(wf.create({ id: '../escape' }), { message: 'WorkflowError: Workflow instance has invalid id' });
    await assert.rejects(wf.create({ id: 'x'.repeat(101) }), { message: 'WorkflowError: Workflow instance has invalid id' });
    await assert.rejects(wf.get('nobody'), { message: 'instance.not_found' });
    await assert.rejects(wf.createBatch([]), { message: 'WorkflowError: batchCreate should have at least 1 instance' });
    await wf.shutdown();
  });
});
