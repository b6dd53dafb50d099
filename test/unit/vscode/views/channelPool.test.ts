// The expanded instances' channels: at most `maxChannels` open, the least recently expanded closed
// first, each channel's states passed on until it closes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EventRow } from '../../../../src/core/contract/instances';
import { Emitter } from '../../../../src/core/events';
import type { InstanceChannel, ReadPath } from '../../../../src/vscode/client/instanceReader';
import { ChannelPool } from '../../../../src/vscode/views/channelPool';

/**
 * A channel the test drives: the pool needs only the interface (the real reader, over an agent's
 * WebSocket, is tested with the model against a real serve in explorerReadPath.test.ts).
 */
class DrivenChannel implements InstanceChannel {
  state: unknown = undefined;
  disposed = false;
  private readonly states = new Emitter<unknown>();
  readonly onDidChangeState = this.states.event;
  constructor(private readonly via: ReadPath = 'callable') {}
  broadcast(state: unknown): void {
    this.state = state;
    this.states.fire(state);
  }
  async events(limit: number): Promise<{ rows: readonly EventRow[]; via: ReadPath }> {
    return { rows: [{ id: `e${limit}`, type: 'push', action: null, title: 't', timestamp: '2026-01-01' }], via: this.via };
  }
  dispose(): void {
    this.disposed = true;
    this.states.dispose();
  }
}

describe('the explorer’s channel pool', () => {
  it('closes the least recently expanded channel past its bound', () => {
    const pool = new ChannelPool(2);
    const [a, b, c] = [new DrivenChannel(), new DrivenChannel(), new DrivenChannel()];
    pool.add('NS/a', a, () => {});
    pool.add('NS/b', b, () => {});
    assert.equal(pool.touch('NS/a'), true, 'a expanded again: now the most recent');
    pool.add('NS/c', c, () => {});
    assert.deepEqual([pool.size, a.disposed, b.disposed, c.disposed], [2, false, true, false]);
    assert.equal(pool.touch('NS/b'), false, 'b has no channel any more');
  });

  it('passes a channel’s states on until it is closed', () => {
    const pool = new ChannelPool();
    const channel = new DrivenChannel();
    const states: unknown[] = [];
    pool.add('NS/a', channel, (state) => states.push(state));
    channel.broadcast({ n: 1 });
    pool.close('NS/a');
    channel.broadcast({ n: 2 });
    assert.deepEqual(states, [{ n: 1 }]);
    assert.deepEqual([channel.disposed, pool.size], [true, 0]);
  });

  it('reads events through a channel and remembers the path they came by', async () => {
    const pool = new ChannelPool();
    pool.add('NS/a', new DrivenChannel('fallback'), () => {});
    assert.deepEqual(pool.readPath('NS/a'), { channel: true, events: undefined });
    const rows = await pool.events('NS/a', 100);
    assert.deepEqual(
      rows?.map((r) => r.id),
      ['e100'],
    );
    assert.deepEqual(pool.readPath('NS/a'), { channel: true, events: 'fallback' });
    assert.equal(pool.events('NS/b', 100), undefined, 'no channel: the caller reads another way');
    assert.deepEqual(pool.readPath('NS/b'), { channel: false, events: undefined });
  });

  it('closes every channel but those kept', () => {
    const pool = new ChannelPool();
    const channels = ['NS/a', 'NS/b', 'OTHER/a'].map((key) => {
      const channel = new DrivenChannel();
      pool.add(key, channel, () => {});
      return channel;
    });
    pool.closeAll((key) => key.startsWith('NS/'));
    assert.deepEqual(
      channels.map((c) => c.disposed),
      [false, false, true],
    );
    pool.closeAll();
    assert.deepEqual([channels.map((c) => c.disposed), pool.size], [[true, true, true], 0]);
  });
});
