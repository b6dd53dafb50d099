/**
 * What an event changed in an agent's state: the difference of two JSON values as a flat list of
 * added, removed and changed leaves, each at its path (`stats.byType.push`). Objects are compared
 * key by key and arrays index by index; any other pair of values is either equal or one change.
 */

export type PathPart = string | number;

export type StateChange =
  | { readonly kind: 'added'; readonly path: readonly PathPart[]; readonly after: unknown }
  | { readonly kind: 'removed'; readonly path: readonly PathPart[]; readonly before: unknown }
  | { readonly kind: 'changed'; readonly path: readonly PathPart[]; readonly before: unknown; readonly after: unknown };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every leaf that differs between `before` and `after`, in key order (before's keys, then new ones). */
export function diffStates(before: unknown, after: unknown, path: readonly PathPart[] = []): StateChange[] {
  if (isObject(before) && isObject(after)) {
    const changes: StateChange[] = [];
    for (const key of Object.keys(before)) {
      if (!Object.hasOwn(after, key)) changes.push({ kind: 'removed', path: [...path, key], before: before[key] });
      else changes.push(...diffStates(before[key], after[key], [...path, key]));
    }
    for (const key of Object.keys(after)) {
      if (!Object.hasOwn(before, key)) changes.push({ kind: 'added', path: [...path, key], after: after[key] });
    }
    return changes;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const changes: StateChange[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      if (i >= after.length) changes.push({ kind: 'removed', path: [...path, i], before: before[i] });
      else if (i >= before.length) changes.push({ kind: 'added', path: [...path, i], after: after[i] });
      else changes.push(...diffStates(before[i], after[i], [...path, i]));
    }
    return changes;
  }
  if (Object.is(before, after)) return [];
  return [{ kind: 'changed', path, before, after }];
}

/** A path as a reader writes it: `stats.byType.push`, `items[0]`, `byType["a.b"]`; the root is `(state)`. */
export function pathText(path: readonly PathPart[]): string {
  if (path.length === 0) return '(state)';
  return path
    .map((part, i) => {
      if (typeof part === 'number') return `[${part}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(part)) return i === 0 ? part : `.${part}`;
      return `[${JSON.stringify(part)}]`;
    })
    .join('');
}
