/**
 * A full garbage collection, a moment after memory was let go: a wasm heap dropped by SqlHeaps
 * (src/runtime/storage/sqlHeaps.ts) is freed only by a full collection, and an idle serve process —
 * the very moment heaps are dropped, when instances are evicted after a load — allocates too
 * little for V8 to run one on its own (docs/performance.md, "Where it goes": giving memory back).
 * Debounced: many heaps dropped together cost one collection, which runs on an unref'd timer and
 * never keeps the process alive.
 *
 * One full collection frees what is garbage but leaves V8's own heap as large as the load made it:
 * the objects still alive are spread over its pages, and a page is given back only when empty.
 * V8 compacts it over the collections it runs when a process goes idle, but by the time instances
 * are evicted (60 s after their last request) those have run. So the collection asks for what V8
 * does when memory is short: on V8 12 and later (Node 22, 24) the `last-resort` flavour, repeated
 * collections that compact every page and give back what is free. V8 11 (Node 20) does not know
 * that option, and given it, ran no major collection at all; three plain collections in a row
 * compact most of its heap (docs/performance.md, "Where it goes": giving memory back).
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { realTimers, type TimerHandle, type Timers } from '../core/timers';

/** Whether this V8 honours `gc({ flavor: 'last-resort' })` (V8 12 and later). */
const LAST_RESORT = Number(process.versions.v8.split('.')[0]) >= 12;

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export class GcNudge {
  private timer: TimerHandle | undefined;
  private collect: Gc | undefined;

  constructor(
    private readonly delayMs = 1_000,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Asks for a full collection `delayMs` after the last call. */
  soon(): void {
    this.timer?.cancel();
    this.timer = this.timers.after(this.delayMs, () => this.run(), { unref: true });
  }

  private run(): void {
    this.timer = undefined;
    try {
      // `gc` is exposed to contexts made after the flag is set; this one is made for the call.
      if (!this.collect) {
        v8.setFlagsFromString('--expose-gc');
        this.collect = vm.runInNewContext('gc') as Gc;
      }
      if (LAST_RESORT) this.collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      else for (let i = 0; i < 3; i++) this.collect();
    } catch {
      // Without it the memory still comes back, when V8 next collects on its own.
    }
  }

  dispose(): void {
    this.timer?.cancel();
  }
}
