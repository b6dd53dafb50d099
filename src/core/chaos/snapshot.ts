/**
 * What a run leaves behind, as the chaos engine compares it (docs/chaos.md, "What is compared"):
 * each entity's agent state, its `ctx.storage` keys and the rows of its own tables. Two runs are
 * compared leaf by leaf, tables as sets of rows, with the noise found between two identical runs
 * left out.
 */
import type { ChaosDifference, EntityKey, NoiseEntry } from '../contract/chaos';

export interface TableData {
  readonly columns: readonly string[];
  /** Columns that number rows in arrival order (an INTEGER PRIMARY KEY): never compared. */
  readonly rowIds: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
}

export interface EntityData {
  /** The agent's state row; undefined when it has none. */
  readonly state: unknown;
  /** `ctx.storage`'s keys and values. */
  readonly storage: Readonly<Record<string, unknown>>;
  readonly tables: Readonly<Record<string, TableData>>;
}

export type Snapshot = Readonly<Record<EntityKey, EntityData>>;

/** The paths to leave out, as `entity`, `part` and `path` (a whole part or entity: path `*`). */
export class NoiseMask {
  private readonly keys = new Set<string>();

  constructor(readonly entries: readonly NoiseEntry[] = []) {
    for (const { entity, part, path } of entries) this.keys.add(key(entity, part, path));
  }

  has(entity: EntityKey, part: string, path: string): boolean {
    return this.keys.has(key(entity, part, path)) || this.keys.has(key(entity, part, '*')) || this.keys.has(key(entity, 'entity', '*'));
  }
}

const key = (entity: string, part: string, path: string) => `${entity}\u0000${part}\u0000${path}`;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

interface Leaf {
  readonly path: string;
  readonly a: unknown;
  readonly b: unknown;
}

/**
 * Where two values differ: the paths of differing leaves; an array whose length differs as a
 * whole, and with `keysWhole` an object whose keys differ too (`skip` says which paths not to look
 * into).
 */
function leaves(a: unknown, b: unknown, path: string, skip: (path: string) => boolean, keysWhole = false): Leaf[] {
  if (path !== '' && skip(path)) return [];
  const child = (k: string | number) => (path === '' ? String(k) : `${path}.${k}`);
  const sameKeys = (x: Record<string, unknown>, y: Record<string, unknown>) => JSON.stringify(Object.keys(x).sort()) === JSON.stringify(Object.keys(y).sort());
  if (isRecord(a) && isRecord(b) && (!keysWhole || path === '' || sameKeys(a, b))) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort().flatMap((k) => leaves(a[k], b[k], child(k), skip, keysWhole));
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.flatMap((item, i) => leaves(item, b[i], child(i), skip, keysWhole));
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [{ path: path === '' ? '(whole)' : path, a, b }];
}

/** The noise between two runs of the same sends: every path where they differ. */
export function findNoise(a: Snapshot, b: Snapshot): NoiseEntry[] {
  const noise: NoiseEntry[] = [];
  const add = (entity: string, part: string, path: string, values: [unknown, unknown]) => noise.push({ entity, part, path, values });
  for (const entity of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const [x, y] = [a[entity], b[entity]];
    if (!x || !y) {
      add(entity, 'entity', '*', [x === undefined ? undefined : 'present', y === undefined ? undefined : 'present']);
      continue;
    }
    // An object whose keys differ between identical runs is keyed by something generated: masked whole.
    for (const leaf of leaves(x.state, y.state, '', () => false, true)) add(entity, 'state', leaf.path, [leaf.a, leaf.b]);
    for (const leaf of leaves(x.storage, y.storage, '', () => false, true)) add(entity, 'storage', leaf.path, [leaf.a, leaf.b]);
    for (const name of [...new Set([...Object.keys(x.tables), ...Object.keys(y.tables)])].sort()) {
      const [s, t] = [x.tables[name], y.tables[name]];
      const part = `table ${name}`;
      if (!s || !t || s.rows.length !== t.rows.length || JSON.stringify(s.columns) !== JSON.stringify(t.columns)) {
        add(entity, part, '*', [s?.rows.length, t?.rows.length]);
        continue;
      }
      // Two identical runs insert the same rows in the same order: a column that differs is noise.
      s.columns.forEach((column, c) => {
        const row = s.rows.findIndex((r, i) => JSON.stringify(r[c]) !== JSON.stringify(t.rows[i]![c]));
        if (row >= 0) add(entity, part, column, [s.rows[row]![c], t.rows[row]![c]]);
      });
    }
  }
  return noise;
}

const MAX_SHOWN = 80;

/** A value as a difference line shows it. */
export function shown(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/** A table's rows as compared: noise and row-id columns left out, each row as an object. */
function comparableRows(entity: string, name: string, table: TableData, mask: NoiseMask): string[] {
  const part = `table ${name}`;
  const kept = table.columns.map((column, c) => [column, c] as const).filter(([column]) => !table.rowIds.includes(column) && !mask.has(entity, part, column));
  return table.rows.map((row) => JSON.stringify(Object.fromEntries(kept.map(([column, c]) => [column, row[c]])))).sort();
}

/** Rows of `a` not matched in `b`, counting repeats. */
function unmatched(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const row of b) left.set(row, (left.get(row) ?? 0) + 1);
  return a.filter((row) => {
    const count = left.get(row) ?? 0;
    if (count === 0) return true;
    left.set(row, count - 1);
    return false;
  });
}

function tableDifferences(entity: string, expected: EntityData | undefined, actual: EntityData | undefined, mask: NoiseMask): ChaosDifference[] {
  const names = [...new Set([...Object.keys(expected?.tables ?? {}), ...Object.keys(actual?.tables ?? {})])].sort();
  return names.flatMap((name) => {
    const part = `table ${name}`;
    if (mask.has(entity, part, '*')) return [];
    const empty: TableData = { columns: [], rowIds: [], rows: [] };
    const [e, a] = [comparableRows(entity, name, expected?.tables[name] ?? empty, mask), comparableRows(entity, name, actual?.tables[name] ?? empty, mask)];
    const [missing, extra] = [unmatched(e, a).map((row) => JSON.parse(row) as unknown), unmatched(a, e).map((row) => JSON.parse(row) as unknown)];
    // One row each way is one row that changed (a counter's row, a status row).
    if (missing.length === 1 && extra.length === 1) {
      return [
        {
          entity,
          part,
          path: 'row',
          expected: missing[0],
          actual: extra[0],
          line: `${entity} ${part}: a row the clean run has as ${shown(missing[0])} is ${shown(extra[0])} here`,
        },
      ];
    }
    return [
      ...missing.map((row): ChaosDifference => ({
        entity,
        part,
        path: 'row',
        expected: row,
        line: `${entity} ${part}: the clean run has a row this run lacks: ${shown(row)}`,
      })),
      ...extra.map((row): ChaosDifference => ({
        entity,
        part,
        path: 'row',
        actual: row,
        line: `${entity} ${part}: a row the clean run does not have: ${shown(row)}`,
      })),
    ];
  });
}

/** How `actual` differs from `expected` (a clean run's), leaving out `mask`. */
export function compareSnapshots(expected: Snapshot, actual: Snapshot, mask: NoiseMask): ChaosDifference[] {
  const entities = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
  return entities.flatMap((entity): ChaosDifference[] => {
    if (mask.has(entity, 'entity', '*')) return [];
    const [e, a] = [expected[entity], actual[entity]];
    const valueLines = (part: 'state' | 'storage', x: unknown, y: unknown) =>
      leaves(x, y, '', (path) => mask.has(entity, part, path)).map((leaf): ChaosDifference => ({
        entity,
        part,
        path: leaf.path,
        ...(leaf.a === undefined ? {} : { expected: leaf.a }),
        ...(leaf.b === undefined ? {} : { actual: leaf.b }),
        line: `${entity} ${part} ${leaf.path}: clean run ${shown(leaf.a)}, this run ${shown(leaf.b)}`,
      }));
    return [...valueLines('state', e?.state, a?.state), ...valueLines('storage', e?.storage ?? {}, a?.storage ?? {}), ...tableDifferences(entity, e, a, mask)];
  });
}

/** Each entity's state alone, for a timeline. */
export function statesOf(snapshot: Snapshot): Record<EntityKey, unknown> {
  return Object.fromEntries(Object.entries(snapshot).map(([entity, data]) => [entity, data.state ?? null]));
}
