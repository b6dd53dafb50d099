// One wake's object on real sql.js, with a manual clock: an event's answer waits until its write is
// durable (the output gate); a reset fails the events running and those let in after, once; and
// blockConcurrencyWhile resets the object when it throws or outruns workerd's 30 s.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InstanceFolder } from '../../../../src/runtime/objects/instanceFolder';
import { BLOCK_CONCURRENCY_TIMEOUT_MESSAGE, LiveInstance } from '../../../../src/runtime/objects/liveInstance';
import { ManualTimers } from '../../helpers/manualTimers';
import { testPlatform } from '../../helpers/platform';

async function live(): Promise<{ live: LiveInstance; timers: ManualTimers; resets: unknown[]; close(): Promise<void> }> {
  const timers = new ManualTimers();
  const folder = new InstanceFolder(await testPlatform({ timers }), 'one', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-live-')));
  const { db, release } = await folder.open();
  const resets: unknown[] = [];
  const instance = new LiveInstance(
    db,
    release,
    timers,
    () => undefined,
    (_live, error) => resets.push(error),
  );
  instance.object = {};
  db.exec('CREATE TABLE t (v INTEGER)');
  await db.commit();
  return { live: instance, timers, resets, close: () => folder.close(Promise.resolve(instance), { snapshot: false, discard: true }) };
}

describe('live instance', () => {
  it('answers an event that wrote only once its write is durable', async () => {
    const { live: l, close } = await live();
    const durableAtAnswer = await l.settle(
      l.run(async ({ db }) => {
        db.exec('INSERT INTO t (v) VALUES (1)');
        return db.durableWriteCount;
      }),
    );
    assert.ok(durableAtAnswer < l.db.writeCount, 'the write was not durable when the handler returned');
    assert.equal(l.durable, true, 'it was when the answer came');
    await close();
  });

  it('fails the events running and every later one with the reset’s error, and reports the reset once', async () => {
    const { live: l, resets, close } = await live();
    const running = l.settle(l.run(() => new Promise(() => undefined)));
    await new Promise((resolve) => setImmediate(resolve));
    const error = new Error('reset');
    l.reset(error);
    l.reset(new Error('again'));
    await assert.rejects(running, error);
    await assert.rejects(l.settle(l.run(async () => 'later')), error);
    assert.equal(l.isReset, true);
    assert.deepEqual(resets, [error]);
    await close();
  });

  it('resets when blockConcurrencyWhile’s callback outruns 30 s, holding other events meanwhile', async () => {
    const { live: l, timers, resets, close } = await live();
    void l.blockWhile(() => new Promise(() => undefined));
    let ran = false;
    const waiting = l.settle(l.run(async () => (ran = true))).then(
      () => 'ran',
      (error: Error) => error.message,
    );
    await timers.advance(29_999);
    assert.equal(ran, false, 'the event waits behind the critical section');
    assert.equal(resets.length, 0);
    await timers.advance(1);
    assert.deepEqual(
      resets.map((error) => (error as Error).message),
      [BLOCK_CONCURRENCY_TIMEOUT_MESSAGE],
    );
    assert.equal(await waiting, BLOCK_CONCURRENCY_TIMEOUT_MESSAGE, 'the waiting event fails with the reset');
    assert.equal(ran, false);
    await close();
  });

  it('gives blockConcurrencyWhile’s value and cancels its timer when the callback returns in time; a throw resets', async () => {
    const { live: l, timers, resets, close } = await live();
    assert.equal(await l.blockWhile(() => 42), 42);
    assert.equal(timers.scheduled, 0);
    assert.equal(resets.length, 0);
    const failure = new Error('constructor failed');
    void l.blockWhile(() => {
      throw failure;
    });
    await timers.advance(0);
    assert.deepEqual(resets, [failure]);
    await close();
  });
});
