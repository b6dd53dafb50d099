/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), in UTC as on
 * Cloudflare: `*`, lists, ranges, steps, month and weekday names, 7 as Sunday.
 */

const FIELDS = [
  { min: 0, max: 59, names: [] as string[] },
  { min: 0, max: 23, names: [] },
  { min: 1, max: 31, names: [] },
  { min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
] as const;

export interface Cron {
  readonly sets: readonly Set<number>[];
  readonly domStar: boolean;
  readonly dowStar: boolean;
}

function value(text: string, field: (typeof FIELDS)[number], expression: string): number {
  const named = (field.names as readonly string[]).indexOf(text.toLowerCase());
  const n = named >= 0 ? named + field.min : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= field.min && n <= field.max)) throw new Error(`Invalid cron expression "${expression}": "${text}" is out of range`);
  return n;
}

export function parseCron(expression: string): Cron {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`Invalid cron expression "${expression}": expected 5 fields`);
  const sets = parts.map((part, i) => {
    const field = FIELDS[i]!;
    const set = new Set<number>();
    for (const item of part.split(',')) {
      const [range, stepText] = item.split('/');
      const step = stepText === undefined ? 1 : Number(stepText);
      if (!Number.isInteger(step) || step < 1) throw new Error(`Invalid cron expression "${expression}": bad step in "${item}"`);
      let lo: number;
      let hi: number;
      if (range === '*') [lo, hi] = [field.min, field.max];
      else if (range!.includes('-')) {
        const [a, b] = range!.split('-');
        [lo, hi] = [value(a!, field, expression), value(b!, field, expression)];
      } else {
        lo = value(range!, field, expression);
        hi = stepText === undefined ? lo : field.max;
      }
      if (lo > hi) throw new Error(`Invalid cron expression "${expression}": empty range "${item}"`);
      for (let n = lo; n <= hi; n += step) set.add(i === 4 && n === 7 ? 0 : n);
    }
    return set;
  });
  return { sets, domStar: parts[2] === '*', dowStar: parts[4] === '*' };
}

/** The first time strictly after `after` (ms) that the expression matches, in ms. */
export function nextCronTime(cron: Cron, after: number): number {
  const [minutes, hours, doms, months, dows] = cron.sets as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  const t = new Date(Math.floor(after / 60_000) * 60_000 + 60_000);
  // Bounded: four years of minutes covers every valid expression (29 February included).
  for (let guard = 0; guard < 4 * 366 * 24 * 60; guard++) {
    if (!months.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    const domMatch = doms.has(t.getUTCDate());
    const dowMatch = dows.has(t.getUTCDay());
    // Vixie cron: when both day fields are restricted, either may match.
    const dayMatch = cron.domStar || cron.dowStar ? domMatch && dowMatch : domMatch || dowMatch;
    if (!dayMatch) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!hours.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!minutes.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return t.getTime();
  }
  throw new Error('cron expression never matches');
}
