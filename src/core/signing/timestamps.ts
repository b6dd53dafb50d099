import { fail, type VerifyOptions, type VerifyResult } from './types';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export function nowSeconds(now: () => number = Date.now): number {
  return Math.floor(now() / 1000);
}

/** Unix seconds as the providers write them: ASCII digits only. */
export function parseUnixSeconds(text: string | undefined): number | undefined {
  if (text === undefined || text.length === 0 || text.length > 12) return undefined;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The time window, the same for every timestamped scheme: a timestamp may be at most the tolerance
 * old (exactly the tolerance passes, as in stripe-node, Bolt and standardwebhooks) and at most the
 * tolerance ahead. Stripe's and Slack's Node libraries accept any future timestamp; Hookbench
 * follows Standard Webhooks and Python's slack_sdk instead, because a future-dated signature is a
 * replay that stays valid for longer.
 */
export function checkWindow(timestamp: number, options: VerifyOptions | undefined, label: string): VerifyResult | undefined {
  const tolerance = options?.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = nowSeconds(options?.now);
  if (now - timestamp > tolerance) {
    return fail('stale', `${label} is ${now - timestamp} s old, more than the ${tolerance} s tolerance`);
  }
  if (timestamp - now > tolerance) {
    return fail('too_new', `${label} is ${timestamp - now} s in the future, more than the ${tolerance} s tolerance`);
  }
  return undefined;
}
