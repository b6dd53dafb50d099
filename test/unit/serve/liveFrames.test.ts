// The live feed's frames for one client (src/serve/admin/liveFrames.ts): one message a frame unless
// the client asked for batches; then a lone message goes on the next tick, and a stream of them
// goes at most one frame per LIVE_BATCH_MS, every message once, in order.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LIVE_BATCH_MS, parseLiveFrame, type LiveMessage } from '../../../src/core/contract/live';
import { LiveFrames } from '../../../src/serve/admin/liveFrames';
import { ManualTimers } from '../helpers/manualTimers';

const state = (n: number): LiveMessage => ({ type: 'state', namespace: 'WEBHOOK_AGENT', name: `e${n}`, state: { n } });

describe('live feed frames', () => {
  it('writes each message as its own frame for a client that did not ask for batches', () => {
    const frames: string[] = [];
    const live = new LiveFrames((f) => frames.push(f), false, new ManualTimers());
    live.push({ type: 'hello' });
    live.push(state(1));
    assert.deepEqual(frames, ['{"type":"hello"}', JSON.stringify(state(1))]);
  });

  it('sends a lone message on the next tick, and gathers a stream into a frame per interval, every message once and in order', async () => {
    const timers = new ManualTimers();
    const frames: string[] = [];
    const live = new LiveFrames((f) => frames.push(f), true, timers);
    live.push({ type: 'hello' });
    assert.deepEqual(frames, [], 'not inside the turn that sent it');
    await timers.advance(0);
    assert.deepEqual(frames.map(parseLiveFrame), [[{ type: 'hello' }]]);
    // 200 messages over one second, one each 5 ms.
    for (let n = 0; n < 200; n++) {
      live.push(state(n));
      await timers.advance(5);
    }
    await timers.advance(LIVE_BATCH_MS);
    const sent = frames.slice(1).map(parseLiveFrame);
    assert.deepEqual(
      sent.flat(),
      Array.from({ length: 200 }, (_, n) => state(n)),
    );
    assert.ok(sent.length <= 1000 / LIVE_BATCH_MS + 1 && sent.length >= 1000 / LIVE_BATCH_MS - 1, `${sent.length} frames`);
    // Quiet again for longer than the interval: the next one goes at once.
    await timers.advance(LIVE_BATCH_MS * 2);
    live.push(state(500));
    await timers.advance(0);
    assert.deepEqual(parseLiveFrame(frames.at(-1)!), [state(500)]);
  });

  it('sends nothing once the client is gone', async () => {
    const timers = new ManualTimers();
    const frames: string[] = [];
    const live = new LiveFrames((f) => frames.push(f), true, timers);
    live.push(state(1));
    live.dispose();
    await timers.advance(LIVE_BATCH_MS * 2);
    assert.deepEqual(frames, []);
  });
});
