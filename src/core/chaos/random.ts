/**
 * The chaos engine's only source of chance: a seeded generator (mulberry32), so the same seed
 * makes the same sends on every machine and every run (docs/chaos.md, "Seeds").
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [low, high]. */
  between(low: number, high: number): number {
    return low + this.int(high - low + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A seed of its own for each part of a run (a perturbation, a run number), derived from the user's seed (FNV-1a). */
export function seedFor(seed: number, ...parts: readonly (string | number)[]): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (const char of parts.join('\u0000')) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
