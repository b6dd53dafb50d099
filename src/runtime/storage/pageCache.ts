/**
 * How big SQLite's page cache is for one instance database when several share a heap's budget
 * (sqlHeaps.ts). The database's whole file sits in sql.js's in-memory file system already, so a
 * cache that holds the whole database is a second copy of it; a write only needs the pages it
 * touches (the B-trees' interior pages, the newest and oldest leaves, the freelist), which a
 * 128 KiB cache holds (docs/performance.md, "Where it goes", measured where the time starts to go).
 */

/** SQLite's default cache (`cache_size = -2000`, about 2 MiB): a database alone keeps it. */
export const MAX_CACHE_KIB = 2000;

/** The least any database gets: the pages one write touches, with room to spare. */
export const MIN_CACHE_KIB = 128;

/**
 * One database's share of `budgetKiB` among `open` databases: the budget divided evenly, rounded
 * down to a power of two (so that the shares of a filling heap change a few times, not at every
 * open), between MIN_CACHE_KIB and MAX_CACHE_KIB.
 */
export function pageCacheShareKiB(budgetKiB: number, open: number): number {
  const even = budgetKiB / Math.max(1, open);
  if (even >= MAX_CACHE_KIB) return MAX_CACHE_KIB;
  if (even <= MIN_CACHE_KIB) return MIN_CACHE_KIB;
  return Math.max(MIN_CACHE_KIB, 2 ** Math.floor(Math.log2(even)));
}
