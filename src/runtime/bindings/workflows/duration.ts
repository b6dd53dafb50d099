/**
 * Workflows' durations: a number of milliseconds or `"<n> <unit>"` (second … year, singular or
 * plural), as `step.sleep`, retry delays and timeouts accept them.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 2_592_000_000,
  year: 31_536_000_000,
};

export function toMs(duration: string | number): number {
  if (typeof duration === 'number') {
    if (!Number.isFinite(duration) || duration < 0) throw new TypeError(`Invalid duration: ${duration}`);
    return duration;
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+?)s?\s*$/i.exec(String(duration));
  const unit = match ? UNIT_MS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined)
    throw new TypeError(`Invalid duration: "${duration}" (a number of milliseconds or "<n> seconds|minutes|hours|days|weeks|months|years")`);
  return Number(match[1]) * unit;
}
