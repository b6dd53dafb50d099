/**
 * Instance databases spread over separate sql.js heaps, so that memory comes back: sql.js runs
 * SQLite in one wasm heap that grows to the most it ever held and never shrinks. Each heap takes
 * at most `perHeap` open databases; a heap whose last database closed is dropped (the garbage
 * collector frees it), so after a load, once idle instances are evicted, the heaps they used go
 * with them. While instances are awake, memory still follows how many are open at once.
 */
import type { SqlJsStatic } from 'sql.js';

/** One open database's hold on a heap: `release` once the database is closed. */
export interface SqlLease {
  readonly sql: Promise<SqlJsStatic>;
  release(): void;
}

interface Heap {
  readonly sql: Promise<SqlJsStatic>;
  open: number;
}

export class SqlHeaps {
  private current: Heap | undefined;
  private readonly heaps = new Set<Heap>();

  constructor(
    private readonly load: () => Promise<SqlJsStatic>,
    private readonly perHeap = 128,
    /** Called when a heap is dropped (a full garbage collection frees it: server/gcNudge.ts). */
    private readonly onDropped: () => void = () => undefined,
  ) {}

  acquire(): SqlLease {
    if (!this.current || this.current.open >= this.perHeap) {
      const sql = this.load();
      sql.catch(() => undefined);
      this.current = { sql, open: 0 };
      this.heaps.add(this.current);
    }
    const heap = this.current;
    heap.open++;
    let released = false;
    return {
      sql: heap.sql,
      release: () => {
        if (released) return;
        released = true;
        heap.open--;
        if (heap.open > 0) return;
        this.heaps.delete(heap);
        if (this.current === heap) this.current = undefined;
        this.onDropped();
      },
    };
  }

  /** Heaps held now (each with at least one open database). */
  get heapCount(): number {
    return this.heaps.size;
  }

  /** Databases open now, over every heap. */
  get openCount(): number {
    let n = 0;
    for (const heap of this.heaps) n += heap.open;
    return n;
  }
}
