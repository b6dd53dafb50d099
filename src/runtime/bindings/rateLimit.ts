/**
 * The Rate Limiting binding (`ratelimits` in the wrangler config), as wrangler dev runs it
 * locally (Miniflare 4.20260426.0's `ratelimit` worker): `limit({ key, limit?, period? })`
 * counts the call against `key` in a fixed window of `period` seconds aligned to the clock, and
 * answers `{ success: false }` once the window already holds `limit` calls. Counters live in
 * memory, per binding, and start again with the process, as wrangler dev's do. The option checks
 * and their messages are Miniflare's.
 */
import { RATE_LIMIT_PERIODS, type RateLimitBinding } from '../../core/workerConfig/bindingsConfig';

const OPTION_KEYS = ['key', 'limit', 'period'];

export interface RateLimitOutcome {
  readonly success: boolean;
}

function check(ok: boolean, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

export class RateLimiter {
  readonly #buckets = new Map<string, number>();
  #epoch = 0;

  constructor(
    private readonly config: RateLimitBinding,
    private readonly now: () => number,
  ) {}

  /** Counts one call for `options.key`; `success` says whether it stayed within the limit. */
  limit(options: unknown): Promise<RateLimitOutcome> {
    try {
      return Promise.resolve(this.count(options));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  private count(options: unknown): RateLimitOutcome {
    check(typeof options === 'object' && options !== null, 'invalid rate limit options');
    const unknown = Object.keys(options).filter((key) => !OPTION_KEYS.includes(key));
    check(unknown.length === 0, `bad rate limit options: [${unknown.join(',')}]`);
    const { key = '', limit = this.config.limit, period = this.config.period } = options as Record<string, unknown>;
    check(typeof key === 'string', `invalid key: ${String(key)}`);
    check(typeof limit === 'number', `limit must be a number: ${String(limit)}`);
    check(typeof period === 'number', `period must be a number: ${String(period)}`);
    check(RATE_LIMIT_PERIODS.includes(period), `unsupported period: ${period}`);
    const epoch = Math.floor(this.now() / (period * 1000));
    if (epoch !== this.#epoch) {
      this.#epoch = epoch;
      this.#buckets.clear();
    }
    const count = this.#buckets.get(key) ?? 0;
    if (count >= limit) return { success: false };
    this.#buckets.set(key, count + 1);
    return { success: true };
  }
}
