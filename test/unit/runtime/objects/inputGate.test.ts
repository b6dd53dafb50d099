// The input gate as workerd runs it (docs/runtime.md, "Concurrency"): what runs code on an
// instance gets in one at a time, the next only after the code before it has yielded to the event
// loop; a critical section or a held operation keeps everything else out; the completion of
// outside I/O comes back through the gate like any event. First the gate alone, then a Durable
// Object whose handler reads, awaits, and writes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputGate, bodyReadsWait, throughCurrentGate } from '../../../../src/runtime/objects/inputGate';
import { DurableObject } from '../../../../src/runtime/objects/durableObject';
import { DurableObjectNamespace } from '../../../../src/runtime/objects/namespace';
import { testPlatform } from '../../helpers/platform';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise the test settles itself: outside I/O that completes when the test says. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('the input gate', () => {
  it('lets the first in at once and the next only on a later turn, in arrival order', async () => {
    const gate = new InputGate();
    const order: string[] = [];
    const entries = ['a', 'b', 'c'].map((name) => gate.enter().then(() => order.push(name)));
    await Promise.resolve();
    assert.deepEqual(order, ['a'], 'b and c wait while a has the turn');
    await turn();
    assert.deepEqual(order, ['a', 'b']);
    await Promise.all(entries);
    assert.deepEqual(order, ['a', 'b', 'c']);
  });

  it('keeps everything out during a critical section, except the section’s own code', async () => {
    const gate = new InputGate();
    await gate.enter();
    const section = gate.openSection();
    const order: string[] = [];
    const other = gate.enter().then(() => order.push('other event'));
    const own = section.inside(() => throughCurrentGate(Promise.resolve())).then(() => order.push('section’s own I/O'));
    await own;
    await turn();
    await turn();
    assert.deepEqual(order, ['section’s own I/O']);
    section.end();
    await other;
    assert.deepEqual(order, ['section’s own I/O', 'other event']);
  });

  it('keeps everything out while a held operation runs', async () => {
    const gate = new InputGate();
    await gate.enter();
    const crypto = deferred<string>();
    const held = gate.hold(crypto.promise);
    let entered = false;
    const next = gate.enter().then(() => (entered = true));
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(entered, false);
    crypto.resolve('signature');
    assert.equal(await held, 'signature');
    await next;
    assert.equal(entered, true);
  });

  it('brings I/O completions back behind the events already waiting', async () => {
    const gate = new InputGate();
    const order: string[] = [];
    await gate.run(async () => {
      await gate.enter();
      const waiting = gate.enter().then(() => order.push('queued event'));
      await throughCurrentGate(Promise.resolve('body'));
      order.push('body read');
      await waiting;
    });
    assert.deepEqual(order, ['queued event', 'body read']);
  });

  it('reads a request body through the gate, keeping the request the worker had', async () => {
    const request = new Request('http://x/', { method: 'POST', body: '{"amount":10}' });
    Object.defineProperty(request, 'mark', { value: 'kept' });
    const delivered = bodyReadsWait(request);
    assert.equal(delivered, request);
    assert.deepEqual(await delivered.json(), { amount: 10 });
  });
});

/** A balance kept in storage; `add` reads it, waits on what the test says, then writes it. */
class Ledger extends DurableObject {
  static outside: { promise: Promise<void>; resolve: (value: void) => void }[] = [];

  async add(amount: number, wait: 'outside' | 'storage' | 'microtask' | 'guarded'): Promise<void> {
    const write = async () => {
      const balance = ((await this.ctx.storage.get<number>('balance')) ?? 0) + amount;
      if (wait === 'outside' || wait === 'guarded') {
        const io = deferred();
        Ledger.outside.push(io);
        await throughCurrentGate(io.promise);
      } else if (wait === 'storage') await this.ctx.storage.get('rate');
      else await Promise.resolve();
      await this.ctx.storage.put('balance', balance);
    };
    if (wait === 'guarded') await this.ctx.blockConcurrencyWhile(write);
    else await write();
  }

  async balance(): Promise<number> {
    return (await this.ctx.storage.get<number>('balance')) ?? 0;
  }
}

type LedgerStub = { add(amount: number, wait: string): Promise<void>; balance(): Promise<number> };

async function ledger(name: string): Promise<LedgerStub> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-gate-'));
  const ns = new DurableObjectNamespace(await testPlatform(), 'LEDGER', 'Ledger', Ledger as never, () => ({}), dir);
  return ns.getByName(name) as unknown as LedgerStub;
}

/** Three adds of 10 sent at once; the outside calls they wait on completed as each one starts one. */
async function threeAtOnce(wait: string): Promise<number> {
  Ledger.outside = [];
  const stub = await ledger(wait);
  await stub.balance();
  const adds = [1, 2, 3].map(() => stub.add(10, wait));
  // Outside I/O completes whenever some is pending, like a network answering.
  let done = false;
  const answering = (async () => {
    while (!done) {
      await turn();
      Ledger.outside.shift()?.resolve();
    }
  })();
  await Promise.all(adds);
  done = true;
  await answering;
  return stub.balance();
}

describe('a handler that reads, awaits, then writes', () => {
  it('loses updates when it awaits outside I/O: the gate lets the next delivery in', async () => {
    assert.ok((await threeAtOnce('outside')) < 30);
  });

  it('loses none when it awaits storage or a resolved promise: nothing else gets in', async () => {
    assert.equal(await threeAtOnce('storage'), 30);
    assert.equal(await threeAtOnce('microtask'), 30);
  });

  it('loses none inside blockConcurrencyWhile, though it awaits outside I/O there', async () => {
    assert.equal(await threeAtOnce('guarded'), 30);
  });
});
