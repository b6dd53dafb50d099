/**
 * The explorer's lists (deliveries, captures, an instance's events) are kept newest first, one
 * row per id, within a limit; reads and live messages are merged into them here.
 */

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
