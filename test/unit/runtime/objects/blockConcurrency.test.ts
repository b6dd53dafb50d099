// blockConcurrencyWhile as workerd runs it: other events wait; a callback that throws, or one
// still running after 30 s (injected clock), resets the object: the event that called it and the
// events waiting fail with the error, the caller's own catch never runs, the writes not yet
// committed are gone, and the next event reaches a new object.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DurableObject, type DurableObjectState } from '../../../../src/runtime/objects/durableObject';
import { BLOCK_CONCURRENCY_TIMEOUT_MESSAGE } from '../../../../src/runtime/objects/instanceHost';
import { DurableObjectNamespace } from '../../../../src/runtime/objects/namespace';
import { ManualTimers, settle } from '../../helpers/manualTimers';
import { testPlatform } from '../../helpers/platform';

const seen = { constructed: 0, resumed: 0 };

class Blocker extends DurableObject {
  memory = 'fresh';

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    seen.constructed++;
    if (ctx.id.name === 'broken') void ctx.blockConcurrencyWhile(async () => Promise.reject(new Error('migration failed')));
  }

  async value(): Promise<number> {
    this.memory = 'touched';
    return this.ctx.blockConcurrencyWhile(async () => 42);
  }

  /** Writes, then fails (at once, or never settles when `hang`): the caller's catch must not run. */
  async fail(hang = false): Promise<string> {
    try {
      await this.ctx.blockConcurrencyWhile(async () => {
        await this.ctx.storage.put('doomed', 1);
        if (hang) return new Promise(() => undefined);
        throw new TypeError('callback failed');
      });
    } catch {
      seen.resumed++;
      return 'caught';
    }
    seen.resumed++;
    return 'resolved';
  }

  async read(): Promise<unknown> {
    return { memory: this.memory, doomed: (await this.ctx.storage.get('doomed')) ?? null };
  }
}

type Stub = { value(): Promise<number>; fail(hang?: boolean): Promise<string>; read(): Promise<{ memory: string; doomed: number | null }> };

async function setup(timers: ManualTimers): Promise<(name: string) => Stub> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bcw-'));
  const ns = new DurableObjectNamespace(await testPlatform({ timers }), 'BLOCKER', 'Blocker', Blocker as never, () => ({}), dir);
  return (name) => ns.getByName(name) as unknown as Stub;
}

describe('blockConcurrencyWhile', () => {
  it("returns the callback's value and keeps the object", async () => {
    const stub = (await setup(new ManualTimers()))('ok');
    assert.equal(await stub.value(), 42);
    assert.deepEqual(await stub.read(), { memory: 'touched', doomed: null });
  });

  it('a throwing callback resets the object: the call and a waiting call fail, the catch never runs, the write is gone', async () => {
    seen.resumed = 0;
    const before = seen.constructed;
    const stub = (await setup(new ManualTimers()))('thrower');
    await stub.value();
    const failing = stub.fail();
    const waiting = stub.read();
    await assert.rejects(failing, { name: 'TypeError', message: 'callback failed' });
    await assert.rejects(waiting, { name: 'TypeError', message: 'callback failed' });
    assert.equal(seen.resumed, 0, 'the caller never resumes after a failed blockConcurrencyWhile');
    assert.deepEqual(await stub.read(), { memory: 'fresh', doomed: null }, 'a new object, the uncommitted write rolled back');
    assert.equal(seen.constructed - before, 2);
  });

  it("a callback still running after 30 s fails with workerd's message and resets the object", async () => {
    seen.resumed = 0;
    const timers = new ManualTimers();
    const stub = (await setup(timers))('slow');
    await stub.value();
    let outcome: unknown;
    const failing = stub.fail(true).then(
      (value) => (outcome = value),
      (error: unknown) => (outcome = error),
    );
    await timers.advance(29_999);
    assert.equal(outcome, undefined, 'still blocked before 30 s');
    await timers.advance(1);
    await failing;
    assert.equal((outcome as unknown as Error).message, BLOCK_CONCURRENCY_TIMEOUT_MESSAGE);
    assert.equal(seen.resumed, 0);
    assert.deepEqual(await stub.read(), { memory: 'fresh', doomed: null });
  });

  it('a failure in the constructor fails every request, each with a new object', async () => {
    const stub = (await setup(new ManualTimers()))('broken');
    const before = seen.constructed;
    await assert.rejects(stub.read(), { message: 'migration failed' });
    await settle();
    await assert.rejects(stub.read(), { message: 'migration failed' });
    assert.equal(seen.constructed - before, 2);
  });
});
