/**
 * A full garbage collection, a moment after memory was let go: a wasm heap dropped by SqlHeaps
 * (src/core/runtime/storage/sqlHeaps.ts) is freed only by a full collection, and an idle serve process —
 * the very moment heaps are dropped, when instances are evicted after a load — allocates too
 * little for V8 to run one on its own (measured on Node 20: 928 MiB still held 2 min after the
 * load, against 169–309 MiB once collected). Debounced: many heaps dropped together cost one
 * collection, which runs on an unref'd timer and never keeps the process alive.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

export class GcNudge {
  private timer: NodeJS.Timeout | undefined;
  private collect: (() => void) | undefined;

  constructor(private readonly delayMs = 1_000) {}

  /** Asks for a full collection `delayMs` after the last call. */
  soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), this.delayMs);
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    try {
      // `gc` is exposed to contexts made after the flag is set; this one is made for the call.
      if (!this.collect) {
        v8.setFlagsFromString('--expose-gc');
        this.collect = vm.runInNewContext('gc') as () => void;
      }
      this.collect();
    } catch {
      // Without it the memory still comes back, when V8 next collects on its own.
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
