import { fail, type VerifyOptions, type VerifyResult } from './types';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export function nowSeconds(now: () => number = Date.now): number {
  return Math.floor(now() / 1000);
}

/** Unix seconds as the providers write them: ASCII digits only. */
export function parseUnixSeconds(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,12}$/.test(text)) return undefined;
  return Number(text);
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
