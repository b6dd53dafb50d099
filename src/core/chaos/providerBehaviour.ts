/**
 * What each provider does when a delivery fails, as its documentation says (each value and its
 * source: docs/chaos.md, "What providers do"): how long it waits for an answer, when it sends the
 * delivery again, what a resend carries, and how old a signed timestamp may be.
 */
import type { ProviderName } from '../contract/providers';

export interface ProviderBehaviour {
  /** How long the provider waits for an answer before it counts the delivery as failed. */
  readonly timeoutMs: number;
  /**
   * The delays of its resends after a failure, first to last. Chaos keeps their order and
   * compresses their time: a resend lands a few deliveries later instead of minutes later.
   */
  readonly retryDelaysMs: readonly number[];
  /** Who resends: the provider on its own, or a person or script (GitHub resends nothing by itself). */
  readonly resentBy: 'provider' | 'redelivery';
  /** The seconds a signed timestamp may be off by; undefined when the provider signs none. */
  readonly toleranceSeconds: number | undefined;
  /** Headers a resend carries besides the delivery's own (Slack numbers its retries). */
  retryHeaders?(attempt: number, reason: 'http_error' | 'http_timeout'): Record<string, string>;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Standard Webhooks' example schedule: the spec's table, after the immediate first attempt. */
const STANDARD_SCHEDULE = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR];

export const PROVIDER_BEHAVIOUR: Readonly<Record<ProviderName, ProviderBehaviour>> = {
  // No automatic retries; a redelivery (from the UI, the API, or the script GitHub's docs
  // suggest) keeps X-GitHub-Delivery.
  github: { timeoutMs: 10 * SECOND, retryDelaysMs: [1 * MINUTE], resentBy: 'redelivery', toleranceSeconds: undefined },
  // Sandboxes: three retries over a few hours (live mode: exponential backoff for up to three
  // days). Each attempt gets a new timestamp and signature; the event id stays.
  stripe: { timeoutMs: 30 * SECOND, retryDelaysMs: [1 * HOUR, 2 * HOUR, 3 * HOUR], resentBy: 'provider', toleranceSeconds: 300 },
  // Retries are opt-in per URL (#rc=…) and absent by default.
  twilio: { timeoutMs: 15 * SECOND, retryDelaysMs: [], resentBy: 'provider', toleranceSeconds: undefined },
  // Three retries: nearly immediately, after one minute, after five, numbered in X-Slack-Retry-Num.
  slack: {
    timeoutMs: 3 * SECOND,
    retryDelaysMs: [0, 1 * MINUTE, 5 * MINUTE],
    resentBy: 'provider',
    toleranceSeconds: 300,
    retryHeaders: (attempt, reason) => ({ 'X-Slack-Retry-Num': String(attempt - 1), 'X-Slack-Retry-Reason': reason }),
  },
  // Eight retries over four hours with exponential backoff (since September 2024); five seconds to answer.
  shopify: { timeoutMs: 5 * SECOND, retryDelaysMs: [1, 2, 4, 8, 16, 32, 64, 113].map((m) => m * MINUTE), resentBy: 'provider', toleranceSeconds: undefined },
  standard: { timeoutMs: 15 * SECOND, retryDelaysMs: STANDARD_SCHEDULE, resentBy: 'provider', toleranceSeconds: 300 },
  // Hookbench's own outbound shape follows Standard Webhooks' recommendations; it signs no timestamp.
  generic: { timeoutMs: 15 * SECOND, retryDelaysMs: STANDARD_SCHEDULE, resentBy: 'provider', toleranceSeconds: undefined },
};

/** How a failure is named in a resend (Slack's X-Slack-Retry-Reason values). */
export function failureReason(status: number | undefined): 'http_error' | 'http_timeout' {
  return status === undefined ? 'http_timeout' : 'http_error';
}

/** Whether an answer tells the provider the delivery succeeded: a 2xx, in time. */
export function delivered(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}
