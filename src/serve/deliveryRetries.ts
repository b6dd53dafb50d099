/**
 * `hookbench serve --retries` (docs/chaos.md, "Provider retries while developing"): a delivery a
 * provider would retry — it came from Hookbench's sender, a replay, a relay or a public URL (never
 * a local client that names no source, such as your own curl), and was answered 5xx or later than
 * the provider waits — is sent again on the provider's retry schedule (the one table chaos uses,
 * src/core/chaos/providerBehaviour.ts), compressed by `scale`, with the provider's delivery id and
 * retry headers, re-signed now, over HTTP to this receiver — only an attempt that was signed with
 * the secret when it came (a provider retries only what it sent). Retrying stops at a 2xx, at the end of
 * the schedule, or when serve stops. Every wait is on the injected timers.
 */
import { delivered, failureReason, PROVIDER_BEHAVIOUR } from '../core/chaos/providerBehaviour';
import { retrySourceHeader, SOURCE_HEADER, type DeliveryRecord, type DeliverySummary, type NextRetry } from '../core/contract/deliveries';
import { fixtureFromDelivery } from '../core/fixtures/fromDelivery';
import { signedRequest } from '../core/fixtures/signedRequest';
import type { Logger } from '../core/log';
import { detectProvider, isProviderName, schemeFor, type ProviderName } from '../core/signing';
import type { TimerHandle, Timers } from '../core/timers';

export interface RetryOptions {
  /** How much the schedule is compressed: 0.001 makes an hour 3.6 s. */
  readonly scale: number;
  readonly timers: Timers;
  readonly logger: Logger;
  /** The worker's secrets: each provider's is read under its scheme's variable. */
  readonly secrets: Readonly<Record<string, string>>;
}

/** What the receiver knows of a delivery once it answered, before it is recorded. */
export type AnsweredDelivery = Pick<DeliveryRecord, 'provider' | 'status' | 'durationMs' | 'source' | 'requestHeaders'>;

/** Header names lower-cased, as the signing schemes read them. */
const lowerCased = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/** The provider the worker named, or else the one whose signature header the request carries (a user's worker names none). */
function providerOf(delivery: Pick<DeliveryRecord, 'provider' | 'requestHeaders'>): ProviderName | undefined {
  if (delivery.provider && isProviderName(delivery.provider)) return delivery.provider;
  return detectProvider(lowerCased(delivery.requestHeaders));
}

export class DeliveryRetries {
  private origin: string | undefined;
  private readonly waiting = new Set<TimerHandle>();
  private readonly sending = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: RetryOptions) {}

  /** The receiver's own origin, where retries are sent. */
  listening(url: string): void {
    this.origin = new URL(url).origin;
  }

  /** The retry a provider would make of this delivery, or undefined when it would make none. */
  plan(delivery: AnsweredDelivery): NextRetry | undefined {
    const { source } = delivery;
    const provider = providerOf(delivery);
    if (this.stopped || !source || !provider) return undefined;
    const behaviour = PROVIDER_BEHAVIOUR[provider];
    const answered = delivery.durationMs <= behaviour.timeoutMs ? delivery.status : undefined;
    // A provider retries a server error or no answer in time; a 4xx says the request itself is wrong.
    if (delivered(answered) || (answered !== undefined && answered < 500)) return undefined;
    const retry = source.kind === 'retry' ? (source.retry ?? 0) + 1 : 1;
    const delay = behaviour.retryDelaysMs[retry - 1];
    if (delay === undefined) return undefined;
    return { retry, retries: behaviour.retryDelaysMs.length, at: new Date(this.options.timers.now() + delay * this.options.scale).toISOString() };
  }

  /** Sends `next` when its time comes: `recorded` is the attempt that failed, `body` its bytes. */
  schedule(recorded: DeliverySummary, body: Buffer, next: NextRetry): void {
    if (this.stopped) return;
    const first = recorded.source?.kind === 'retry' && recorded.source.of ? recorded.source.of : recorded.id;
    const wait = Math.max(0, Date.parse(next.at) - this.options.timers.now());
    const handle = this.options.timers.after(
      wait,
      () => {
        this.waiting.delete(handle);
        const sent = this.send(recorded, body, first, next).finally(() => this.sending.delete(sent));
        this.sending.add(sent);
      },
      { unref: true },
    );
    this.waiting.add(handle);
  }

  private async send(recorded: DeliverySummary, body: Buffer, first: string, next: NextRetry): Promise<void> {
    const provider = providerOf(recorded);
    if (this.stopped || !this.origin || !provider) return;
    const secret = this.options.secrets[schemeFor(provider).shape.secretEnv];
    const what = `retry ${next.retry} of ${next.retries} of ${recorded.method} ${recorded.path}`;
    if (!secret) return this.options.logger.warn(`[retries] ${what} not sent: no ${schemeFor(provider).shape.secretEnv} to sign it with`);
    // A provider retries only what it sent: an attempt not signed with the secret when it came (a
    // request anyone on the webhook route can make, naming itself a send) is never re-signed.
    const signedThen = schemeFor(provider).verify({ secret, body, headers: lowerCased(recorded.requestHeaders) }, { now: () => Date.parse(recorded.time) });
    if (!signedThen.valid)
      return this.options.logger.warn(`[retries] ${what} not sent: the failed attempt was not signed with ${schemeFor(provider).shape.secretEnv}`);
    try {
      const fixture = fixtureFromDelivery(
        { ...recorded, provider, requestBody: '', requestBodyBase64: body.toString('base64'), responseBody: '' },
        { name: 'retry' },
      );
      const request = signedRequest(fixture, { secret, base: this.origin });
      const { timeoutMs, retryHeaders } = PROVIDER_BEHAVIOUR[provider];
      // The provider's attempt number: the first retry is attempt 2. Lower-cased, so they replace the failed attempt's own.
      const reason = failureReason(recorded.durationMs > timeoutMs ? undefined : recorded.status);
      const extra = Object.fromEntries(Object.entries(retryHeaders?.(next.retry + 1, reason) ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
      const response = await fetch(request.url, {
        method: request.method,
        headers: { ...request.headers, ...extra, [SOURCE_HEADER]: retrySourceHeader(first, next.retry) },
        body: request.body,
      });
      await response.arrayBuffer();
      this.options.logger.info(`[retries] ${what}: ${response.status}`);
    } catch (error) {
      this.options.logger.warn(`[retries] ${what} failed: ${(error as Error).message}`);
    }
  }

  /** No more retries: the waiting ones are dropped, the ones in flight awaited. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const handle of this.waiting) handle.cancel();
    this.waiting.clear();
    await Promise.allSettled([...this.sending]);
  }
}
