// The collection serve asks for once heaps are dropped (src/serve/gcNudge.ts): V8's heap, left
// spread over many pages by a load whose objects are mostly garbage now, is given back — not
// only the garbage collected but the pages compacted and freed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GcNudge } from '../../../src/serve/gcNudge';
import { ManualTimers } from '../helpers/manualTimers';

describe('the collection after heaps are dropped', () => {
  it("gives back V8's heap that a load left spread over many pages", async () => {
    // A load's objects, one in fifty still alive afterwards, scattered over every page.
    let load: { i: number; s: string }[][] | undefined = [];
    for (let round = 0; round < 30; round++) load.push(Array.from({ length: 100_000 }, (_, i) => ({ i, s: `x${i}` })));
    const alive = load.flatMap((objects) => objects.filter((_, i) => i % 50 === 0));
    load = undefined;
    const before = process.memoryUsage().heapTotal;
    const timers = new ManualTimers();
    const nudge = new GcNudge(1_000, timers);
    nudge.soon();
    await timers.advance(600);
    nudge.soon(); // debounced: due 1 s after the last call
    await timers.advance(999);
    assert.equal(timers.scheduled, 1, 'not run yet');
    await timers.advance(1);
    assert.equal(timers.scheduled, 0);
    const after = process.memoryUsage().heapTotal;
    assert.equal(alive.length, 60_000);
    assert.ok(after < before / 2, `V8's heap: ${before >> 20} MiB before, ${after >> 20} MiB after`);
  });
});
