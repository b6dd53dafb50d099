/**
 * The explorer's changes, paced for VS Code's tree debounce (docs/explorer.md, "Three sources,
 * each read once"): what the model marks as changed is gathered and fired as one
 * {@link ExplorerChange}, at most one per `paceMs`, the lists (Deliveries, Outbound) at most one
 * per `listPaceMs`. It knows nothing of what changed beyond the names it is given.
 */
import { Emitter } from '../../core/events';
import { realTimers, type TimerHandle, type Timers } from '../../core/timers';

/** What changed since the last change fired. Keys are `namespace/name`. */
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

/** What one update of the model touched: gathered into the next {@link ExplorerChange}. */
export interface ChangeMark {
  readonly all?: boolean;
  readonly namespaceList?: boolean;
  readonly namespaces?: readonly string[];
  readonly instances?: readonly string[];
  readonly events?: readonly string[];
  readonly deliveries?: boolean;
  readonly captures?: boolean;
}

export interface ChangePacerOptions {
  /**
   * At most one change event per `paceMs`. VS Code merges tree changes and applies them only after
   * 200 ms without one: firing more often than that starves it.
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
}

type Pending = {
  all: boolean;
  namespaceList: boolean;
  namespaces: Set<string>;
  instances: Set<string>;
  events: Set<string>;
  deliveries: boolean;
  captures: boolean;
};

const empty = (): Pending => ({
  all: false,
  namespaceList: false,
  namespaces: new Set(),
  instances: new Set(),
  events: new Set(),
  deliveries: false,
  captures: false,
});

export class ChangePacer {
  private pending = empty();
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

  constructor(options: ChangePacerOptions = {}) {
    this.paceMs = options.paceMs ?? 250;
    this.listPaceMs = options.listPaceMs ?? 1000;
    this.timers = options.timers ?? realTimers;
  }

  /** Adds `change` to the next change fired. */
  mark(change: ChangeMark): void {
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

  /** The user asked for more of the lists: their next change goes out at the next pace, not the lists'. */
  hurryLists(): void {
    this.lastListFired = -Infinity;
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
    this.pending = empty();
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
    this.timer?.cancel();
    this.changed.dispose();
  }
}

/** Whether a change redraws more than the lists: a node of the Agents view, or everything. */
function touchesNodes(change: ExplorerChange): boolean {
  return change.all || change.namespaceList || change.namespaces.size > 0 || change.instances.size > 0 || change.events.size > 0;
}
