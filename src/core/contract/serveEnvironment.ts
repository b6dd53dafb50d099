/**
 * Environment variables the serve process is started with, by the extension and the benchmarks
 * (a user starting `hookbench serve` may set them too; docs/performance.md, "Memory").
 *
 * `MALLOC_MMAP_THRESHOLD_`: glibc serves an allocation of 128 KiB or more with its own mmap, given
 * back when freed, but raises that threshold after the first such free, and later ones come from
 * a heap that does not shrink. sql.js keeps each database file in memory as one such allocation
 * (grown by doubling), so after a load and the eviction of its instances RSS stayed at 269 MiB for
 * 45 MiB in use; with the threshold fixed it fell to 108 MiB (300 databases of 330 KiB, in-process).
 * Read by glibc at process start only, so it has to come from whoever starts the process; other
 * C libraries ignore it.
 */
export const SERVE_PROCESS_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: String(128 * 1024),
};
