/**
 * Instance databases spread over separate sql.js heaps, so that memory comes back: sql.js runs
 * SQLite in one wasm heap that grows to the most it ever held and never shrinks. Each heap takes
 * at most `perHeap` open databases; a heap whose last database closed is dropped (the garbage
 * collector frees it), so after a load, once idle instances are evicted, the heaps they used go
 * with them. While instances are awake, memory still follows how many are open at once.
 *
 * A database opens in the fullest heap that has room, a new heap only when every one is full: the
 * heaps stay packed whichever instances the memory budget keeps (memoryBudget.ts). Filling only
 * the newest heap would leave every older heap held, at its high-water mark, by the few instances
 * the budget keeps for long (docs/performance.md, "Who the budget lets in").
 *
 * Each heap also shares a page-cache budget among its open databases (pageCacheShareKiB): a
 * database alone in its heap keeps SQLite's default 2 MiB cache, a full heap gives each a cache
 * that holds the pages every write touches but not the whole database (the whole database is in
 * sql.js's in-memory file already). Since a heap never shrinks, the budget bounds what the caches
 * of one heap can ever take, whatever order databases came and went in.
 */
import type { SqlJsStatic } from 'sql.js';
import { pageCacheShareKiB } from './pageCache';

/** One open database's hold on a heap: `release` once the database is closed. */
export interface SqlLease {
  readonly sql: Promise<SqlJsStatic>;
  /**
   * Gives the database's page-cache size (KiB) to `apply` now and whenever the heap's share
   * changes, until `release`.
   */
  followCacheSize(apply: (kib: number) => void): void;
  release(): void;
}

interface Heap {
  readonly sql: Promise<SqlJsStatic>;
  open: number;
  /** The cache size given to the heap's databases now (KiB). */
  shareKiB: number;
  readonly appliers: Set<(kib: number) => void>;
}

/** Default page-cache budget of one heap: 16 MiB (128 databases at 128 KiB each). */
export const DEFAULT_CACHE_BUDGET_KIB = 16 * 1024;

export class SqlHeaps {
  private readonly heaps = new Set<Heap>();

  constructor(
    private readonly load: () => Promise<SqlJsStatic>,
    private readonly perHeap = 128,
    /** Called when a heap is dropped (a full garbage collection frees it: server/gcNudge.ts). */
    private readonly onDropped: () => void = () => undefined,
    /** Page cache shared by the databases of one heap (KiB). */
    private readonly cacheBudgetKiB = DEFAULT_CACHE_BUDGET_KIB,
  ) {}

  acquire(): SqlLease {
    const heap = this.fullestWithRoom() ?? this.loadHeap();
    heap.open++;
    this.reshare(heap);
    let released = false;
    let applier: ((kib: number) => void) | undefined;
    return {
      sql: heap.sql,
      followCacheSize: (apply) => {
        if (released) return;
        if (applier) heap.appliers.delete(applier);
        applier = apply;
        heap.appliers.add(apply);
        apply(heap.shareKiB);
      },
      release: () => {
        if (released) return;
        released = true;
        if (applier) heap.appliers.delete(applier);
        heap.open--;
        if (heap.open > 0) {
          this.reshare(heap);
          return;
        }
        this.heaps.delete(heap);
        this.onDropped();
      },
    };
  }

  /** The heap with the most open databases that can take one more; undefined when all are full. */
  private fullestWithRoom(): Heap | undefined {
    let best: Heap | undefined;
    for (const heap of this.heaps) if (heap.open < this.perHeap && (!best || heap.open > best.open)) best = heap;
    return best;
  }

  private loadHeap(): Heap {
    const sql = this.load();
    sql.catch(() => undefined);
    const heap: Heap = { sql, open: 0, shareKiB: pageCacheShareKiB(this.cacheBudgetKiB, 1), appliers: new Set() };
    this.heaps.add(heap);
    return heap;
  }

  /** Gives every database of `heap` its new share when the number open changed it. */
  private reshare(heap: Heap): void {
    const share = pageCacheShareKiB(this.cacheBudgetKiB, heap.open);
    if (share === heap.shareKiB) return;
    heap.shareKiB = share;
    for (const apply of heap.appliers) apply(share);
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
