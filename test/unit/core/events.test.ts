import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DisposableStore, Emitter, toDisposable } from '../../../src/core/events';

describe('toDisposable', () => {
  it('runs its function once however often it is disposed', () => {
    let calls = 0;
    const d = toDisposable(() => calls++);
    d.dispose();
    d.dispose();
    assert.equal(calls, 1);
  });
});

describe('DisposableStore', () => {
  it('disposes its items newest first', () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(toDisposable(() => order.push('a')));
    store.add(toDisposable(() => order.push('b')));
    store.dispose();
    assert.deepEqual(order, ['b', 'a']);
    assert.equal(store.isDisposed, true);
  });

  it('disposes an item added after the store was disposed at once', () => {
    const store = new DisposableStore();
    store.dispose();
    let disposed = false;
    store.add(toDisposable(() => (disposed = true)));
    assert.equal(disposed, true);
  });

  it('disposes every item even when some throw, then reports all the failures', () => {
    const store = new DisposableStore();
    let reached = false;
    store.add(toDisposable(() => (reached = true)));
    store.add(
      toDisposable(() => {
        throw new Error('one');
      }),
    );
    store.add(
      toDisposable(() => {
        throw new Error('two');
      }),
    );
    assert.throws(
      () => store.dispose(),
      (e: unknown) => e instanceof AggregateError && e.errors.length === 2,
    );
    assert.equal(reached, true);
  });

  it('rethrows a single failure as it is', () => {
    const store = new DisposableStore();
    store.add(
      toDisposable(() => {
        throw new Error('only');
      }),
    );
    assert.throws(() => store.dispose(), /only/);
  });

  it('disposes its items only once', () => {
    let calls = 0;
    const store = new DisposableStore();
    store.add(toDisposable(() => calls++));
    store.dispose();
    store.dispose();
    assert.equal(calls, 1);
  });
});

describe('Emitter', () => {
  it('delivers each fired value to every listener in subscription order', () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    emitter.event((v) => seen.push(`a${v}`));
    emitter.event((v) => seen.push(`b${v}`));
    emitter.fire(1);
    emitter.fire(2);
    assert.deepEqual(seen, ['a1', 'b1', 'a2', 'b2']);
  });

  it('stops delivering to a listener once its subscription is disposed', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    const sub = emitter.event((v) => seen.push(v));
    emitter.fire(1);
    sub.dispose();
    emitter.fire(2);
    assert.deepEqual(seen, [1]);
    assert.equal(emitter.listenerCount, 0);
  });

  it('keeps two subscriptions of the same function independent', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    const listener = (v: number) => seen.push(v);
    const first = emitter.event(listener);
    emitter.event(listener);
    first.dispose();
    emitter.fire(7);
    assert.deepEqual(seen, [7]);
  });

  it('still calls the other listeners when one throws, and reports the error', () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<number>((e) => errors.push(e));
    const seen: number[] = [];
    emitter.event(() => {
      throw new Error('listener broke');
    });
    emitter.event((v) => seen.push(v));
    emitter.fire(3);
    assert.deepEqual(seen, [3]);
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /listener broke/);
  });

  it('lets a listener unsubscribe another during delivery without skipping the current round', () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    const subs: { dispose(): void }[] = [];
    emitter.event(() => {
      seen.push('first');
      subs[0]?.dispose();
    });
    subs.push(emitter.event(() => seen.push('second')));
    emitter.fire(1);
    emitter.fire(2);
    assert.deepEqual(seen, ['first', 'second', 'first']);
  });

  it('ignores subscriptions after it is disposed', () => {
    const emitter = new Emitter<number>();
    emitter.dispose();
    const seen: number[] = [];
    emitter.event((v) => seen.push(v)).dispose();
    emitter.fire(1);
    assert.deepEqual(seen, []);
  });
});
