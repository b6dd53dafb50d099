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
import { Emitter, type Disposable, type Event } from '../../core/events';
import { realTimers, type TimerHandle, type Timers } from '../../core/timers';
import type { InstanceChannel, ReadPath } from '../client/instanceReader';
import type { AdminClient } from '../client/adminClient';

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

/** What changed since the last {@link ExplorerModel.onDidChange}. Keys are `namespace/name`. */
export interface ExplorerChange {
  /** Everything may have changed (a reload, or a redraw asked for). */
  readonly all: boolean;
  /** The set of namespaces changed. */
  readonly namespaceList: boolean;
  /** Namespaces whose instance list changed. */
  readonly namespaces: ReadonlySet<string>;
  /** Instances whose node changed (description, state, children). */
  readonly instances: ReadonlySet<string>;
  /** Instances whose event list changed. */
  readonly events: ReadonlySet<string>;
  readonly deliveries: boolean;
  readonly captures: boolean;
}

export interface ExplorerModelOptions {
  /**
   * At most one change event per `paceMs`. VS Code merges tree changes and applies them only after
   * 200 ms without one (docs/explorer.md, "Three sources, each read once"): firing more often than that starves it.
   */
  readonly paceMs?: number;
  /**
   * At most one change of the Deliveries and Outbound lists per `listPaceMs` (default 1 s). A list
   * redraws whole, every item sent to VS Code again, where an instance redraws one node: under a
   * steady stream of webhooks, redrawing the lists at `paceMs` was most of what the extension host
   * did (docs/performance.md, "The explorer in the extension host"). The first change after a quiet
   * second goes out at `paceMs` as any other.
   */
  readonly listPaceMs?: number;
  readonly timers?: Timers;
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
 * Newest first, one row per id (a row in `added` wins over the same id in `into`, and on equal
 * times comes first): a message and a read racing each other give the same list. A live message's
 * row goes into a list merge returned in one pass (mergeOne): sorting the whole list again for
 * every message was a tenth of the extension host's work at 200 webhooks a second. Reads, rarer,
 * are merged and sorted.
 */
export function merge<T extends { readonly id: string }>(into: readonly T[], added: readonly T[], time: (item: T) => string, limit: number): T[] {
  if (added.length === 1 && merged.has(into)) return mergeOne(into, added[0]!, time, limit);
  const byId = new Map<string, T>();
  for (const item of [...added, ...into]) if (!byId.has(item.id)) byId.set(item.id, item);
  const list = [...byId.values()].sort((a, b) => (time(a) < time(b) ? 1 : time(a) > time(b) ? -1 : 0)).slice(0, limit);
  merged.add(list);
  return list;
}

/** The lists merge returned: in order, one row per id. */
const merged = new WeakSet<readonly unknown[]>();

/** One row into a list merge returned (a live message's row): one pass, nothing but the new list allocated. */
function mergeOne<T extends { readonly id: string }>(into: readonly T[], item: T, time: (item: T) => string, limit: number): T[] {
  const at = time(item);
  const list: T[] = [];
  let placed = false;
  for (const row of into) {
    if (list.length >= limit) break;
    if (row.id === item.id) continue;
    if (!placed && time(row) <= at) {
      list.push(item);
      placed = true;
      if (list.length >= limit) break;
    }
    list.push(row);
  }
  if (!placed && list.length < limit) list.push(item);
  merged.add(list);
  return list;
}

export class ExplorerModel {
  private readonly entries = new Map<string, InstanceEntry>();
  private deliveryList: DeliverySummary[] = [];
  private captureList: CaptureSummary[] = [];
  /** Captures the sink dropped to stay within its bounds (all sinks), as last told. */
  private capturesDropped = 0;
  private source: ExplorerSource | undefined;
  private loading: Promise<void> | undefined;
  /** Bumped by every reload: reads started for an older connection are dropped. */
  private generation = 0;
  private readonly detailReads = new Map<string, Promise<void>>();
  /** The channels of expanded instances, least recently expanded first. */
  private readonly channels = new Map<string, { channel: InstanceChannel; subscription: Disposable; via?: ReadPath }>();
  private readonly eventReads = new Map<string, Promise<void>>();
  /** Instances with a message during their details read: read once more after it. */
  private readonly raced = new Set<string>();
  /** What the feed said while a reload reads the lists. */
  private arrived: { instances: Set<string>; deliveries: DeliverySummary[]; captures: CaptureSummary[]; dropped: number } | undefined;

  private pending = ExplorerModel.empty();
  private timer: TimerHandle | undefined;
  private lastFired = -Infinity;
  private lastListFired = -Infinity;
  /** When the pending flush runs. */
  private timerDue = -Infinity;
  private readonly changed = new Emitter<ExplorerChange>();
  readonly onDidChange = this.changed.event;

  private readonly paceMs: number;
  private readonly listPaceMs: number;
  private readonly timers: Timers;
  private deliveryLimit: number;
  private readonly retainedEvents: () => number;
  private readonly openChannel: ExplorerModelOptions['openChannel'];
  private readonly maxChannels: number;

  constructor(options: ExplorerModelOptions = {}) {
    this.retainedEvents = options.retainedEvents ?? (() => 0);
    this.paceMs = options.paceMs ?? 250;
    this.listPaceMs = options.listPaceMs ?? 1000;
    this.timers = options.timers ?? realTimers;
    this.deliveryLimit = options.deliveryLimit ?? PAGE;
    this.openChannel = options.openChannel;
    this.maxChannels = options.maxChannels ?? 16;
  }

  private static empty() {
    return { all: false, namespaceList: false, namespaces: new Set<string>(), instances: new Set<string>(), events: new Set<string>(), deliveries: false, captures: false };
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
    return [...this.entries.values()].filter((e) => e.summary.namespace === namespace).sort((a, b) => (a.summary.name < b.summary.name ? -1 : a.summary.name > b.summary.name ? 1 : 0));
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
    const reading = unknown.map((i) => this.detailReads.get(instanceKey(i.namespace, i.name))).filter((r) => r !== undefined);
    const wanted = unknown.filter((i) => !this.detailReads.has(instanceKey(i.namespace, i.name)));
    await Promise.all([...reading, ...(wanted.length > 0 ? [this.readDetails(wanted)] : [])]);
  }

  /** Reads an instance's newest events (as many as its Events node shows), unless they are known already. */
  async loadEvents(namespace: string, name: string): Promise<readonly EventRow[]> {
    const key = instanceKey(namespace, name);
    const source = this.source;
    const entry = this.entries.get(key);
    if (entry && entry.events === undefined && source) {
      let read = this.eventReads.get(key);
      if (!read) {
        const generation = this.generation;
        const limit = entry.eventsWanted;
        const open = this.channels.get(key);
        const rows = open
          ? open.channel.events(limit).then(({ rows, via }) => {
              open.via = via;
              return rows;
            })
          : source.events(namespace, name, limit);
        read = rows
          .then((rows) => {
            const current = this.entries.get(key);
            if (current && generation === this.generation) this.entries.set(key, { ...current, events: merge(current.events ?? [], rows.map(listed), (e) => e.timestamp, current.eventsWanted) });
          })
          .finally(() => this.eventReads.delete(key));
        this.eventReads.set(key, read);
      }
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
    const generation = this.generation;
    const [deliveries, captures] = await Promise.all([source.deliveries(this.deliveryLimit), source.captures(this.deliveryLimit)]);
    if (generation !== this.generation) return;
    this.deliveryList = merge(this.deliveryList, deliveries, (d) => d.time, this.deliveryLimit);
    this.captureList = merge(this.captureList, captures.captures, (c) => c.time, this.deliveryLimit);
    this.capturesDropped = Math.max(this.capturesDropped, captures.dropped);
    // The user asked: shown at the next pace, not the lists'.
    this.lastListFired = -Infinity;
    this.mark({ deliveries: true, captures: true });
  }

  private readDetails(instances: readonly InstanceRef[]): Promise<void> {
    const source = this.source;
    if (!source || instances.length === 0) return Promise.resolve();
    const generation = this.generation;
    const keys = instances.map((i) => instanceKey(i.namespace, i.name));
    for (const key of keys) this.raced.delete(key);
    const read = source
      .details(instances.map(({ namespace, name }) => ({ namespace, name })))
      .then((list) => {
        if (generation !== this.generation) return;
        for (const details of list) {
          const key = instanceKey(details.namespace, details.name);
          const entry = this.entries.get(key);
          if (entry) this.entries.set(key, { ...entry, state: details.state, eventCount: details.tables.find((t) => t.name === EVENTS_TABLE)?.rows, known: true });
        }
      })
      .catch(() => undefined)
      .finally(() => {
        for (const key of keys) if (this.detailReads.get(key) === read) this.detailReads.delete(key);
        // A message during the read may or may not be in what it read: read those once more.
        const raced = instances.filter((_, i) => this.raced.delete(keys[i]!));
        if (raced.length > 0 && generation === this.generation) void this.readDetails(raced).then(() => this.mark({ instances: raced.map((i) => instanceKey(i.namespace, i.name)) }));
      });
    for (const key of keys) this.detailReads.set(key, read);
    return read;
  }

  // ---- expanded instances ---------------------------------------------------------------------

  /**
   * The instance's node was expanded: open its channel (closing the least recently expanded one
   * past `maxChannels`), so its state comes from the agent's broadcast from now on.
   */
  expand(namespace: string, name: string): void {
    const key = instanceKey(namespace, name);
    const entry = this.entries.get(key);
    const open = this.channels.get(key);
    if (open) {
      // Most recently expanded last.
      this.channels.delete(key);
      this.channels.set(key, open);
      return;
    }
    if (!entry || !this.openChannel || !this.source) return;
    const channel = this.openChannel(entry.summary);
    if (!channel) return;
    // Its events are read through the channel from now on; an instance only the feed described
    // (a user's worker tells the feed nothing of its rows) has its tables read once.
    this.entries.set(key, { ...entry, events: undefined, known: entry.known && entry.eventCount !== undefined });
    const subscription = channel.onDidChangeState((state) => {
      if (state !== undefined) this.update(namespace, name, (e) => ({ ...e, state }));
    });
    this.channels.set(key, { channel, subscription });
    for (const [oldest] of this.channels) {
      if (this.channels.size <= this.maxChannels) break;
      this.collapse(...splitKey(oldest));
    }
  }

  /** The instance's node was collapsed, or left the view: close its channel. */
  collapse(namespace: string, name: string): void {
    const key = instanceKey(namespace, name);
    const open = this.channels.get(key);
    if (!open) return;
    this.channels.delete(key);
    open.subscription.dispose();
    open.channel.dispose();
  }

  /** How many channels are open (at most `maxChannels`). */
  get channelCount(): number {
    return this.channels.size;
  }

  /** Whether the instance has an open channel, and which path its events were last read by. */
  readPath(namespace: string, name: string): { channel: boolean; events: ReadPath | undefined } {
    const open = this.channels.get(instanceKey(namespace, name));
    return { channel: open !== undefined, events: open?.via };
  }

  /** Closes the channels of `namespace`'s instances that are not among `shown` (they left the view). */
  closeChannelsOutside(namespace: string, shown: ReadonlySet<string>): void {
    this.closeChannels((key) => {
      const [ns, name] = splitKey(key);
      return ns !== namespace || shown.has(name);
    });
  }

  private closeChannels(keep: (key: string) => boolean = () => false): void {
    for (const key of [...this.channels.keys()]) if (!keep(key)) this.collapse(...splitKey(key));
  }

  // ---- updating -------------------------------------------------------------------------------

  /** Uses `source` from now on (`undefined`: the serve process stopped; what is known stays shown). */
  connect(source: ExplorerSource | undefined): void {
    this.source = source;
    this.generation++;
    // Channels belong to the serve process they were opened on.
    this.closeChannels();
    if (!source) this.loading = undefined;
  }

  /** Reads every list again: on connect and on every reconnect of the live feed. */
  reload(): Promise<void> {
    const source = this.source;
    if (!source) return Promise.resolve();
    const generation = ++this.generation;
    this.detailReads.clear();
    this.eventReads.clear();
    // What the feed says while the lists are read may or may not be in them: it wins.
    const arrived = (this.arrived = { instances: new Set<string>(), deliveries: [] as DeliverySummary[], captures: [] as CaptureSummary[], dropped: 0 });
    const loading = (async () => {
      const [instances, deliveries, captures] = await Promise.all([source.instances(), source.deliveries(this.deliveryLimit), source.captures(this.deliveryLimit)]);
      if (generation !== this.generation) return;
      this.arrived = undefined;
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
        this.entries.set(key, { summary, state: before?.state, eventCount: before?.eventCount, known: false, events: undefined, eventsWanted: before?.eventsWanted ?? PAGE });
      }
      for (const key of arrived.instances) {
        const current = previous.get(key);
        if (current) this.entries.set(key, current);
      }
      this.closeChannels((key) => this.entries.has(key));
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
        this.arrived?.deliveries.push(message.delivery);
        this.deliveryList = merge(this.deliveryList, [message.delivery], (d) => d.time, this.deliveryLimit);
        this.mark({ deliveries: true });
        return;
      case 'outbound':
        this.arrived?.captures.push(message.capture);
        if (this.arrived) this.arrived.dropped = Math.max(this.arrived.dropped, message.dropped);
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
    this.arrived?.instances.add(key);
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
        this.entries.set(key, { summary: message.instance, state: created ? null : undefined, eventCount: undefined, known: created, events: created ? [] : undefined, eventsWanted: PAGE });
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
        if (this.detailReads.has(key)) this.raced.add(key);
        void this.readDetails([message]).then(() => this.mark({ instances: [key] }));
        this.mark({ instances: [key], events: [key] });
        return;
    }
  }

  private update(namespace: string, name: string, change: (entry: InstanceEntry) => InstanceEntry): void {
    const key = instanceKey(namespace, name);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.arrived?.instances.add(key);
    if (this.detailReads.has(key)) this.raced.add(key);
    this.entries.set(key, change(entry));
    this.mark({ instances: [key] });
  }

  // ---- pacing ---------------------------------------------------------------------------------

  private mark(change: { all?: boolean; namespaceList?: boolean; namespaces?: string[]; instances?: string[]; events?: string[]; deliveries?: boolean; captures?: boolean }): void {
    const p = this.pending;
    p.all ||= change.all ?? false;
    p.namespaceList ||= change.namespaceList ?? false;
    p.deliveries ||= change.deliveries ?? false;
    p.captures ||= change.captures ?? false;
    for (const n of change.namespaces ?? []) p.namespaces.add(n);
    for (const k of change.instances ?? []) p.instances.add(k);
    for (const k of change.events ?? []) p.events.add(k);
    this.scheduleFlush();
  }

  /**
   * The first change goes out on the next turn (a synchronous burst stays one change); later ones
   * wait for the pace, so VS Code sees a quiet gap between them; a change of the lists alone waits
   * for the lists' pace as well.
   */
  private scheduleFlush(): void {
    const p = this.pending;
    const nodes = touchesNodes(p);
    if (!nodes && !p.deliveries && !p.captures) return;
    const due = Math.max(this.lastFired + this.paceMs, nodes ? -Infinity : this.lastListFired + this.listPaceMs);
    if (this.timer !== undefined && this.timerDue <= due) return;
    this.timer?.cancel();
    this.timerDue = due;
    this.timer = this.timers.after(Math.max(0, due - this.timers.now()), () => this.flush());
  }

  private flush(): void {
    this.timer = undefined;
    const now = this.timers.now();
    const change = this.pending;
    this.pending = ExplorerModel.empty();
    const lists = change.deliveries || change.captures;
    if (lists && !change.all && now < this.lastListFired + this.listPaceMs) {
      // The lists wait for their own pace; what else changed goes out now.
      this.pending.deliveries = change.deliveries;
      this.pending.captures = change.captures;
      change.deliveries = change.captures = false;
    } else if (lists || change.all) {
      this.lastListFired = now;
    }
    if (touchesNodes(change) || change.deliveries || change.captures) {
      this.lastFired = now;
      this.changed.fire(change);
    }
    this.scheduleFlush();
  }

  dispose(): void {
    this.closeChannels();
    this.timer?.cancel();
    this.changed.dispose();
  }
}

/** Whether a change redraws more than the lists: a node of the Agents view, or everything. */
function touchesNodes(change: ExplorerChange): boolean {
  return change.all || change.namespaceList || change.namespaces.size > 0 || change.instances.size > 0 || change.events.size > 0;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/** A count that retention keeps at most `keep` (0: no limit). */
function capped(count: number, keep: number): number {
  return keep > 0 ? Math.min(count, keep) : count;
}
