/**
 * A token bucket for the emulator's request rate, so code that must survive Cloudflare's 429s can
 * meet them locally: `perSecond` requests a second on average, bursts up to `burst`.
 */
export class RateLimit {
  #tokens: number;
  #last: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number = Math.max(1, Math.ceil(perSecond)),
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#tokens = burst;
    this.#last = now();
  }

  /** Takes a token and answers 0, or answers the whole seconds to wait before one is free. */
  take(): number {
    if (this.perSecond <= 0) return 0;
    const now = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.perSecond);
    this.#last = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.#tokens) / this.perSecond));
  }
}
