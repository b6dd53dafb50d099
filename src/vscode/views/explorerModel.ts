/**
 * What the explorer knows of the running serve process, kept current from the live feed instead
 * of re-read per redraw: the instances (with their state and event count), the event lists that
 * were opened, the deliveries and the outbound captures. The lists are read once per connection
 * (on the feed's `hello`, so a reconnect reads them again); after that each message updates the
 * model, and the change names what changed so the trees redraw only those nodes.
 *
 * An expanded instance is read as any client of its agent would (client/instanceReader.ts): a
 * channel over the agents protocol gives its state as the agent broadcasts it, and its events
 * through the agent's `getEvents` callable (the admin API's SQL when the worker has none).
 * Channels are open only for expanded instances, at most `maxChannels` at once.
 *
 * Long lists come a page (100) at a time: a namespace's instances are described in one batch
 * request per page, an instance's events and the deliveries are read again with a larger limit
 * when the user asks for 100 more.
 *
 * No `vscode` here: the trees adapt it, and unit tests drive it with plain messages.
 */
import type { DeliverySummary } from '../../core/contract/deliveries';
import type { EventRow, InstanceDetails, InstanceRef, InstanceSummary } from '../../core/contract/instances';
import type { LiveMessage } from '../../core/contract/live';
import { EVENTS_TABLE } from '../../core/contract/tables';
import type { CaptureSummary } from '../../core/contract/sink';
import type { Event } from '../../core/events';
import type { InstanceChannel, ReadPath } from '../client/instanceReader';
import type { AdminClient } from '../client/adminClient';
import { ChangePacer, type ChangeMark, type ChangePacerOptions, type ExplorerChange } from './changePacer';
import { ChannelPool } from './channelPool';
import { FeedReads } from './feedReads';
import { merge } from './newestFirst';

export type { ExplorerChange } from './changePacer';
export { merge } from './newestFirst';

/** How many items a list shows at first, and how many more each "Show 100 more" adds. */
export const PAGE = 100;

/** Where the model reads what the live feed does not carry: the admin API's client. */
export interface ExplorerSource {
  instances(): Promise<InstanceSummary[]>;
  /** Many instances described in one request. */
  details(instances: readonly InstanceRef[]): Promise<InstanceDetails[]>;
  /** An instance's newest events by the admin API's SQL: the fallback read path. */
  events(namespace: string, name: string, limit?: number): Promise<EventRow[]>;
  deliveries(limit?: number): Promise<DeliverySummary[]>;
  /** The newest captures, and how many older ones the sink's bounds dropped. */
  captures(limit?: number): Promise<{ readonly captures: readonly CaptureSummary[]; readonly dropped: number }>;
}

/** One instance as the explorer shows it. */
export interface InstanceEntry {
  readonly summary: InstanceSummary;
  /** Its state row; `null` when it has none, `undefined` until read. */
  readonly state: unknown;
  /** Rows of its `events` table; `undefined` when it has no such table (or it is not read yet). */
  readonly eventCount: number | undefined;
  /** True once state and event count are known (read, or learnt from the feed). */
  readonly known: boolean;
  /** The newest events, once the Events node was opened. */
  readonly events: readonly EventRow[] | undefined;
  /** How many events the Events node shows (a page, or more pages once asked). */
  readonly eventsWanted: number;
}

/** The pacing of changes (changePacer.ts), and what the model itself keeps. */
export interface ExplorerModelOptions extends ChangePacerOptions {
  /** Deliveries (and outbound captures) kept at first: a page; "Show 100 more" raises it. */
  readonly deliveryLimit?: number;
  /**
   * Opens the agents-protocol channel of an expanded instance (undefined: read it through the
   * source only). The session opens an {@link InstanceReader} on the current serve process.
   */
  readonly openChannel?: (instance: InstanceSummary) => InstanceChannel | undefined;
  /** At most this many channels are open; expanding one more closes the least recently expanded. */
  readonly maxChannels?: number;
  /**
   * How many events the built-in worker keeps per instance (its retention, 0 = all): an `event`
   * message adds one to an instance's count only up to it, as retention deletes the oldest.
   */
  readonly retainedEvents?: () => number;
}

/** What the trees follow: the model and its paced changes (the session, or the benchmark's stand-in). */
export interface ExplorerFeed {
  readonly model: ExplorerModel;
  /** The current serve process's admin client (the inspector's Tables read through it). */
  readonly client: AdminClient | undefined;
  readonly onDidChange: Event<ExplorerChange>;
  /** Redraws the views from what is known. */
  schedule(): void;
}

export const instanceKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** What the explorer lists of an event: a row a callable returned may carry its payload too. */
const listed = (row: EventRow): EventRow => ({ id: row.id, type: row.type, action: row.action ?? null, title: row.title, timestamp: row.timestamp });

/**
 * The model: what is known of the instances, their events, the deliveries and the captures, and
 * how each live message changes it. Its three helpers each do one job: {@link FeedReads}
 * reconciles reads with the feed, {@link ChannelPool} keeps the expanded instances' channels,
 * {@link ChangePacer} paces the changes for the trees.
 */
export class ExplorerModel {
  private readonly entries = new Map<string, InstanceEntry>();
  private deliveryList: DeliverySummary[] = [];
  private captureList: CaptureSummary[] = [];
  /** Captures the sink dropped to stay within its bounds (all sinks), as last told. */
  private capturesDropped = 0;
  private source: ExplorerSource | undefined;
  private loading: Promise<void> | undefined;
  private readonly reads = new FeedReads();
  private readonly channels: ChannelPool;
  private readonly pacer: ChangePacer;
  readonly onDidChange: Event<ExplorerChange>;

  private deliveryLimit: number;
  private readonly retainedEvents: () => number;
  private readonly openChannel: ExplorerModelOptions['openChannel'];

  constructor(options: ExplorerModelOptions = {}) {
    this.retainedEvents = options.retainedEvents ?? (() => 0);
    this.deliveryLimit = options.deliveryLimit ?? PAGE;
    this.openChannel = options.openChannel;
    this.channels = new ChannelPool(options.maxChannels ?? 16);
    this.pacer = new ChangePacer(options);
    this.onDidChange = this.pacer.onDidChange;
  }

  // ---- reading --------------------------------------------------------------------------------

  /** Resolves when the lists of the current connection are read (at once when there is none). */
  async ready(): Promise<void> {
    await this.loading?.catch(() => undefined);
  }

  namespaces(): { namespace: string; agent: string }[] {
    const seen = new Map<string, string>();
    for (const { summary } of this.entries.values()) if (!seen.has(summary.namespace)) seen.set(summary.namespace, summary.agent);
    return [...seen].map(([namespace, agent]) => ({ namespace, agent }));
  }

  instances(namespace: string): InstanceEntry[] {
    return [...this.entries.values()]
      .filter((e) => e.summary.namespace === namespace)
      .sort((a, b) => (a.summary.name < b.summary.name ? -1 : a.summary.name > b.summary.name ? 1 : 0));
  }

  instance(namespace: string, name: string): InstanceEntry | undefined {
    return this.entries.get(instanceKey(namespace, name));
  }

  get deliveries(): readonly DeliverySummary[] {
    return this.deliveryList;
  }

  get captures(): readonly CaptureSummary[] {
    return this.captureList;
  }

  /** How many older captures the sink dropped to stay within its budget. */
  get droppedCaptures(): number {
    return this.capturesDropped;
  }

  /** How many deliveries and outbound captures the lists hold (a page, more once asked). */
  get listLimit(): number {
    return this.deliveryLimit;
  }

  /**
   * Reads the state and event count of the instances not known yet (once per instance and
   * connection), all in one request: a page of a namespace is one read, not one per instance.
   */
  async loadDetails(entries: readonly InstanceEntry[]): Promise<void> {
    const unknown = entries.filter((e) => !e.known).map((e) => e.summary);
    const reading = unknown.map((i) => this.reads.detailsRead(instanceKey(i.namespace, i.name))).filter((r) => r !== undefined);
    const wanted = unknown.filter((i) => !this.reads.detailsRead(instanceKey(i.namespace, i.name)));
    await Promise.all([...reading, ...(wanted.length > 0 ? [this.readDetails(wanted)] : [])]);
  }

  /** Reads an instance's newest events (as many as its Events node shows), unless they are known already. */
  async loadEvents(namespace: string, name: string): Promise<readonly EventRow[]> {
    const key = instanceKey(namespace, name);
    const source = this.source;
    const entry = this.entries.get(key);
    if (entry && entry.events === undefined && source) {
      const read = this.reads.readEvents(key, () => {
        const generation = this.reads.current;
        const limit = entry.eventsWanted;
        const rows = this.channels.events(key, limit) ?? source.events(namespace, name, limit);
        return rows.then((rows) => {
          const current = this.entries.get(key);
          if (current && this.reads.isCurrent(generation))
            this.entries.set(key, { ...current, events: merge(current.events ?? [], rows.map(listed), (e) => e.timestamp, current.eventsWanted) });
        });
      });
      await read.catch(() => undefined);
    }
    return this.entries.get(key)?.events ?? [];
  }

  /** Shows 100 more of an instance's events: they are read again with the larger limit. */
  showMoreEvents(namespace: string, name: string): void {
    const key = instanceKey(namespace, name);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.set(key, { ...entry, eventsWanted: entry.eventsWanted + PAGE, events: undefined });
    this.mark({ events: [key] });
  }

  /** Keeps (and shows) 100 more deliveries and captures: read again, once, with the larger limit. */
  async showMoreDeliveries(): Promise<void> {
    const source = this.source;
    this.deliveryLimit += PAGE;
    if (!source) return;
    const generation = this.reads.current;
    const [deliveries, captures] = await Promise.all([source.deliveries(this.deliveryLimit), source.captures(this.deliveryLimit)]);
    if (!this.reads.isCurrent(generation)) return;
    this.deliveryList = merge(this.deliveryList, deliveries, (d) => d.time, this.deliveryLimit);
    this.captureList = merge(this.captureList, captures.captures, (c) => c.time, this.deliveryLimit);
    this.capturesDropped = Math.max(this.capturesDropped, captures.dropped);
    // The user asked: shown at the next pace, not the lists'.
    this.pacer.hurryLists();
    this.mark({ deliveries: true, captures: true });
  }

  private readDetails(instances: readonly InstanceRef[]): Promise<void> {
    const source = this.source;
    if (!source || instances.length === 0) return Promise.resolve();
    const generation = this.reads.current;
    const keys = instances.map((i) => instanceKey(i.namespace, i.name));
    const read = () =>
      source.details(instances.map(({ namespace, name }) => ({ namespace, name }))).then((list) => {
        if (!this.reads.isCurrent(generation)) return;
        for (const details of list) {
          const key = instanceKey(details.namespace, details.name);
          const entry = this.entries.get(key);
          if (entry)
            this.entries.set(key, { ...entry, state: details.state, eventCount: details.tables.find((t) => t.name === EVENTS_TABLE)?.rows, known: true });
        }
      });
    return this.reads.readDetails(keys, read, (racedKeys) => {
      // A message during the read may or may not be in what it read: read those once more.
      const raced = instances.filter((_, i) => racedKeys.includes(keys[i]!));
      if (raced.length > 0 && this.reads.isCurrent(generation))
        void this.readDetails(raced).then(() => this.mark({ instances: raced.map((i) => instanceKey(i.namespace, i.name)) }));
    });
  }

  // ---- expanded instances ---------------------------------------------------------------------

  /**
   * The instance's node was expanded: open its channel (closing the least recently expanded one
   * past `maxChannels`), so its state comes from the agent's broadcast from now on.
   */
  expand(namespace: string, name: string): void {
    const key = instanceKey(namespace, name);
    const entry = this.entries.get(key);
    if (this.channels.touch(key)) return;
    if (!entry || !this.openChannel || !this.source) return;
    const channel = this.openChannel(entry.summary);
    if (!channel) return;
    // Its events are read through the channel from now on; an instance only the feed described
    // (a user's worker tells the feed nothing of its rows) has its tables read once.
    this.entries.set(key, { ...entry, events: undefined, known: entry.known && entry.eventCount !== undefined });
    this.channels.add(key, channel, (state) => {
      if (state !== undefined) this.update(namespace, name, (e) => ({ ...e, state }));
    });
  }

  /** The instance's node was collapsed, or left the view: close its channel. */
  collapse(namespace: string, name: string): void {
    this.channels.close(instanceKey(namespace, name));
  }

  /** How many channels are open (at most `maxChannels`). */
  get channelCount(): number {
    return this.channels.size;
  }

  /** Whether the instance has an open channel, and which path its events were last read by. */
  readPath(namespace: string, name: string): { channel: boolean; events: ReadPath | undefined } {
    return this.channels.readPath(instanceKey(namespace, name));
  }

  /** Closes the channels of `namespace`'s instances that are not among `shown` (they left the view). */
  closeChannelsOutside(namespace: string, shown: ReadonlySet<string>): void {
    this.channels.closeAll((key) => {
      const [ns, name] = splitKey(key);
      return ns !== namespace || shown.has(name);
    });
  }

  // ---- updating -------------------------------------------------------------------------------

  /** Uses `source` from now on (`undefined`: the serve process stopped; what is known stays shown). */
  connect(source: ExplorerSource | undefined): void {
    this.source = source;
    this.reads.connected();
    // Channels belong to the serve process they were opened on.
    this.channels.closeAll();
    if (!source) this.loading = undefined;
  }

  /** Reads every list again: on connect and on every reconnect of the live feed. */
  reload(): Promise<void> {
    const source = this.source;
    if (!source) return Promise.resolve();
    // What the feed says while the lists are read may or may not be in them: it wins.
    const { generation, arrived } = this.reads.readingLists();
    const loading = (async () => {
      const [instances, deliveries, captures] = await Promise.all([
        source.instances(),
        source.deliveries(this.deliveryLimit),
        source.captures(this.deliveryLimit),
      ]);
      if (!this.reads.isCurrent(generation)) return;
      this.reads.listsRead();
      const previous = new Map(this.entries);
      this.entries.clear();
      for (const summary of instances) {
        const key = instanceKey(summary.namespace, summary.name);
        const before = previous.get(key);
        if (arrived.instances.has(key)) {
          if (before) this.entries.set(key, before);
          continue;
        }
        // Known state stays shown until read again; event lists are read again when shown.
        this.entries.set(key, {
          summary,
          state: before?.state,
          eventCount: before?.eventCount,
          known: false,
          events: undefined,
          eventsWanted: before?.eventsWanted ?? PAGE,
        });
      }
      for (const key of arrived.instances) {
        const current = previous.get(key);
        if (current) this.entries.set(key, current);
      }
      this.channels.closeAll((key) => this.entries.has(key));
      this.deliveryList = merge(deliveries, arrived.deliveries, (d) => d.time, this.deliveryLimit);
      this.captureList = merge(captures.captures, arrived.captures, (c) => c.time, this.deliveryLimit);
      // A new serve process (or data folder) may have dropped fewer: the list read now says.
      this.capturesDropped = Math.max(captures.dropped, arrived.dropped);
      this.mark({ all: true });
    })();
    this.loading = loading;
    return loading;
  }

  /** Asks the views to redraw everything from what is known (relative times age). */
  redraw(): void {
    this.mark({ all: true });
  }

  apply(message: LiveMessage): void {
    switch (message.type) {
      case 'hello':
        void this.reload().catch(() => undefined);
        return;
      case 'delivery':
        this.reads.deliveryArrived(message.delivery);
        this.deliveryList = merge(this.deliveryList, [message.delivery], (d) => d.time, this.deliveryLimit);
        this.mark({ deliveries: true });
        return;
      case 'outbound':
        this.reads.captureArrived(message.capture, message.dropped);
        this.captureList = merge(this.captureList, [message.capture], (c) => c.time, this.deliveryLimit);
        this.capturesDropped = Math.max(this.capturesDropped, message.dropped);
        this.mark({ captures: true });
        return;
      case 'instance':
        return this.applyInstance(message);
      case 'state':
        return this.update(message.namespace, message.name, (e) => ({ ...e, state: message.state }));
      case 'event': {
        const { event } = message;
        const key = instanceKey(message.namespace, message.name);
        const had = this.entries.get(key)?.events?.some((e) => e.id === event.id) ?? false;
        this.update(message.namespace, message.name, (e) => ({
          ...e,
          eventCount: had ? e.eventCount : capped((e.eventCount ?? 0) + 1, this.retainedEvents()),
          events: e.events && merge(e.events, [event], (row) => row.timestamp, e.eventsWanted),
        }));
        this.mark({ events: [key] });
        return;
      }
    }
  }

  private applyInstance(message: Extract<LiveMessage, { type: 'instance' }>): void {
    const key = instanceKey(message.namespace, message.name);
    const entry = this.entries.get(key);
    this.reads.instanceArrived(key);
    switch (message.kind) {
      case 'created':
      case 'woken':
      case 'evicted': {
        if (entry) {
          this.entries.set(key, { ...entry, summary: message.instance });
          this.mark({ instances: [key] });
          return;
        }
        // A new instance starts empty: nothing to read until the feed says what it stored.
        const created = message.kind === 'created';
        this.entries.set(key, {
          summary: message.instance,
          state: created ? null : undefined,
          eventCount: undefined,
          known: created,
          events: created ? [] : undefined,
          eventsWanted: PAGE,
        });
        this.mark({ namespaceList: this.instances(message.namespace).length === 1, namespaces: [message.namespace] });
        return;
      }
      case 'deleted':
        if (!entry) return;
        this.collapse(message.namespace, message.name);
        this.entries.delete(key);
        this.mark({ namespaceList: this.instances(message.namespace).length === 0, namespaces: [message.namespace] });
        return;
      case 'changed':
        if (!entry) return;
        this.entries.set(key, { ...entry, known: false, events: undefined });
        this.reads.racedDetails(key);
        void this.readDetails([message]).then(() => this.mark({ instances: [key] }));
        this.mark({ instances: [key], events: [key] });
        return;
    }
  }

  private update(namespace: string, name: string, change: (entry: InstanceEntry) => InstanceEntry): void {
    const key = instanceKey(namespace, name);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.reads.instanceArrived(key);
    this.reads.racedDetails(key);
    this.entries.set(key, change(entry));
    this.mark({ instances: [key] });
  }

  private mark(change: ChangeMark): void {
    this.pacer.mark(change);
  }

  dispose(): void {
    this.channels.closeAll();
    this.pacer.dispose();
  }
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/** A count that retention keeps at most `keep` (0: no limit). */
function capped(count: number, keep: number): number {
  return keep > 0 ? Math.min(count, keep) : count;
}
