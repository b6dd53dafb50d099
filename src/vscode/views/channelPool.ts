/**
 * The agents-protocol channels of expanded instances (client/instanceReader.ts), at most
 * `maxChannels` open: opening one more closes the least recently expanded. Keyed by
 * `namespace/name`; it knows nothing of the model but the state listener it is handed.
 */
import type { EventRow } from '../../core/contract/instances';
import type { Disposable } from '../../core/events';
import type { InstanceChannel, ReadPath } from '../client/instanceReader';

interface Open {
  readonly channel: InstanceChannel;
  readonly subscription: Disposable;
  /** Which path its events were last read by. */
  via?: ReadPath;
}

export class ChannelPool {
  /** Least recently expanded first. */
  private readonly open = new Map<string, Open>();

  constructor(private readonly maxChannels = 16) {}

  /** Marks `key`'s channel the most recently expanded; false when it has none. */
  touch(key: string): boolean {
    const open = this.open.get(key);
    if (!open) return false;
    this.open.delete(key);
    this.open.set(key, open);
    return true;
  }

  /**
   * Keeps `channel` as `key`'s, its states going to `onState`, and closes the least recently
   * expanded channels past `maxChannels`.
   */
  add(key: string, channel: InstanceChannel, onState: (state: unknown) => void): void {
    const subscription = channel.onDidChangeState(onState);
    this.open.set(key, { channel, subscription });
    for (const [oldest] of this.open) {
      if (this.open.size <= this.maxChannels) break;
      this.close(oldest);
    }
  }

  /** Reads `key`'s newest events through its channel, noting the path; undefined when it has none. */
  events(key: string, limit: number): Promise<readonly EventRow[]> | undefined {
    const open = this.open.get(key);
    return open?.channel.events(limit).then(({ rows, via }) => {
      open.via = via;
      return rows;
    });
  }

  close(key: string): void {
    const open = this.open.get(key);
    if (!open) return;
    this.open.delete(key);
    open.subscription.dispose();
    open.channel.dispose();
  }

  /** Closes every channel whose key `keep` refuses (all of them without it). */
  closeAll(keep: (key: string) => boolean = () => false): void {
    for (const key of [...this.open.keys()]) if (!keep(key)) this.close(key);
  }

  get size(): number {
    return this.open.size;
  }

  /** Whether `key` has an open channel, and which path its events were last read by. */
  readPath(key: string): { channel: boolean; events: ReadPath | undefined } {
    const open = this.open.get(key);
    return { channel: open !== undefined, events: open?.via };
  }
}
