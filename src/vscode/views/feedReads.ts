/**
 * Reads of the admin API reconciled with the live feed (docs/explorer.md): a read and a message
 * may race, and the model must show the same thing whichever came first.
 *
 * - Every connection and every reload starts a new generation; a read started in an older one is
 *   dropped when it ends.
 * - While the lists are read again, what the feed says is kept aside (`arrived`): it wins over
 *   the lists read, which may or may not include it.
 * - A message about an instance whose details are being read may or may not be in what the read
 *   returns: the read is done once more after it (`raced`).
 * - One details read and one events read at a time per instance; a second ask joins the first.
 *
 * It holds no model: the model asks it, and reads through it.
 */
import type { DeliverySummary } from '../../core/contract/deliveries';
import type { CaptureSummary } from '../../core/contract/sink';

/** What the feed said while the lists were read. */
export interface Arrived {
  readonly instances: Set<string>;
  readonly deliveries: DeliverySummary[];
  readonly captures: CaptureSummary[];
  dropped: number;
}

export class FeedReads {
  private generation = 0;
  private arrived: Arrived | undefined;
  private readonly detailReads = new Map<string, Promise<void>>();
  /** Instances with a message during their details read: read once more after it. */
  private readonly raced = new Set<string>();
  private readonly eventReads = new Map<string, Promise<void>>();

  /** The current generation: a read compares it with {@link isCurrent} when it ends. */
  get current(): number {
    return this.generation;
  }

  isCurrent(generation: number): boolean {
    return generation === this.generation;
  }

  /** A new connection (or none): reads under way are dropped when they end. */
  connected(): void {
    this.generation++;
  }

  /**
   * The lists are read again: a new generation, no read of the older one joined, and what the
   * feed says from now on kept aside until {@link listsRead}.
   */
  readingLists(): { generation: number; arrived: Arrived } {
    const generation = ++this.generation;
    this.detailReads.clear();
    this.eventReads.clear();
    const arrived = (this.arrived = { instances: new Set<string>(), deliveries: [], captures: [], dropped: 0 });
    return { generation, arrived };
  }

  /** The lists of the current generation are read and merged with what arrived. */
  listsRead(): void {
    this.arrived = undefined;
  }

  /** The feed told of a delivery. */
  deliveryArrived(delivery: DeliverySummary): void {
    this.arrived?.deliveries.push(delivery);
  }

  /** The feed told of an outbound capture, and how many the sink dropped. */
  captureArrived(capture: CaptureSummary, dropped: number): void {
    this.arrived?.captures.push(capture);
    if (this.arrived) this.arrived.dropped = Math.max(this.arrived.dropped, dropped);
  }

  /** The feed told of instance `key` (created, woken, evicted, deleted, changed). */
  instanceArrived(key: string): void {
    this.arrived?.instances.add(key);
  }

  /** A message changed instance `key` while its details may be being read: read them once more after. */
  racedDetails(key: string): void {
    if (this.detailReads.has(key)) this.raced.add(key);
  }

  /** The details read under way for `key`, if any. */
  detailsRead(key: string): Promise<void> | undefined {
    return this.detailReads.get(key);
  }

  /**
   * Reads the details of `keys` (`read`, its failure ignored); when it ends, `raced` is called with
   * the keys a message raced meanwhile.
   */
  readDetails(keys: readonly string[], read: () => Promise<void>, raced: (keys: string[]) => void): Promise<void> {
    for (const key of keys) this.raced.delete(key);
    const reading: Promise<void> = read()
      .catch(() => undefined)
      .finally(() => {
        for (const key of keys) if (this.detailReads.get(key) === reading) this.detailReads.delete(key);
        raced(keys.filter((key) => this.raced.delete(key)));
      });
    for (const key of keys) this.detailReads.set(key, reading);
    return reading;
  }

  /** Reads `key`'s events (`read`), or joins the read under way. */
  readEvents(key: string, read: () => Promise<void>): Promise<void> {
    let reading = this.eventReads.get(key);
    if (!reading) {
      reading = read().finally(() => this.eventReads.delete(key));
      this.eventReads.set(key, reading);
    }
    return reading;
  }
}
