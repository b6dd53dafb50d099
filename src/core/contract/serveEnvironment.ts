/**
 * Environment variables the serve process is started with, by the extension and the benchmarks
 * (a user starting `hookbench serve` may set them too).
 */

/**
 * serve's `--memory-budget` (MiB) when it is not given, and the default of the setting
 * `hookbench.receiver.memoryBudget` the extension passes as the flag (docs/performance.md, "Who the budget lets in").
 */
export const DEFAULT_MEMORY_BUDGET_MIB = 192;

/** The admin API's token: serve's admin routes and live feed answer only a client that shows it. */
export const ADMIN_TOKEN_ENV = 'HOOKBENCH_ADMIN_TOKEN';

/** The Browser Rendering emulator's Bearer token; without it serve makes one up and prints it. */
export const RENDER_TOKEN_ENV = 'HOOKBENCH_RENDER_TOKEN';

/**
 * Set for every serve process, for its memory (docs/performance.md, "Where it goes").
 *
 * `MALLOC_MMAP_THRESHOLD_`: glibc serves an allocation of this size or more (128 KiB at first) with its own mmap, given
 * back when freed, but raises that threshold after the first such free, and later ones come from
 * a heap that does not shrink. sql.js keeps each database file in memory as one such allocation
 * (grown by doubling), so after a load and the eviction of its instances RSS stayed several times
 * what was in use (docs/performance.md, "Where it goes": the allocator's threshold).
 * Read by glibc at process start only, so it has to come from whoever starts the process; other
 * C libraries ignore it.
 */
export const SERVE_PROCESS_ENV: Readonly<Record<string, string>> = {
  // 32 KiB, not glibc's initial 128 KiB: with 128 KiB the brk heap of a serve that had evicted
  // every instance after a load stayed fragmented by the buffers of 32 to 128 KiB a load frees and
  // allocates; 32 KiB gives most of it back for the same throughput (docs/performance.md, "Where
  // it goes": the allocator's threshold).
  MALLOC_MMAP_THRESHOLD_: String(32 * 1024),
};
