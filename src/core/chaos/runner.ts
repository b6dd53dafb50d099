/**
 * One run of a plan on a fresh receiver (docs/chaos.md, "How a run goes"): each step's sends
 * signed afresh and posted (a burst all at once), each answer awaited no longer than the
 * provider waits, failed attempts retried as the plan's rules say, and what the run left read at
 * the end (and after every step, for a timeline).
 */
import type { ChaosSend } from '../contract/chaos';
import { encodeFixtureBody, fixtureBody, type Fixture } from '../contract/fixtures';
import type { ProviderName } from '../contract/providers';
import { signedRequest, type SignedRequest } from '../fixtures/signedRequest';
import { asNewDelivery } from '../payloads';
import type { Timers } from '../timers';
import { STALE_MARGIN_SECONDS } from './perturbations';
import type { Plan, SendSpec, Step } from './plan';
import { PROVIDER_BEHAVIOUR, delivered, failureReason } from './providerBehaviour';
import type { Snapshot } from './snapshot';

/** A receiver running the worker on a data folder of its own. */
export interface RunTarget {
  /** Its origin, `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** What every entity holds now. */
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

/** Starts the worker under test, each time on a fresh data folder. */
export interface ChaosTarget {
  /** What runs: `built-in` or the worker's entry. */
  readonly worker: string;
  open(): Promise<RunTarget>;
}

export interface RunOptions {
  readonly secrets: ReadonlyMap<ProviderName, string>;
  /** Waits on answers (each provider's timeout) and the clock signatures are dated by. */
  readonly timers: Timers;
  /** Read what every entity holds after each step. */
  readonly observe?: boolean;
}

export interface RunResult {
  readonly sends: ChaosSend[];
  readonly snapshot: Snapshot;
  /** With `observe`: what every entity held after each step. */
  readonly after: Snapshot[];
}

/** The request a send makes: re-signed now; a stale copy with its own id, dated past the provider's tolerance. */
export function requestFor(spec: SendSpec, secret: string, base: string, now: number): SignedRequest {
  const { fixture } = spec.delivery;
  const behaviour = PROVIDER_BEHAVIOUR[fixture.provider];
  if (spec.kind === 'stale') {
    const copy = asNewDelivery(fixture.provider, { ...fixture.request.headers }, fixtureBody(fixture.request), () => spec.staleId!);
    const stale: Fixture = { ...fixture, request: { ...fixture.request, headers: copy.headers, ...encodeFixtureBody(copy.body) } };
    const signedAt = now - ((behaviour.toleranceSeconds ?? 0) + STALE_MARGIN_SECONDS) * 1000;
    return signedRequest(stale, { secret, base, source: 'replay', sign: { now: () => signedAt } });
  }
  const request = signedRequest(fixture, { secret, base, source: 'replay', sign: { now: () => now } });
  if (spec.kind !== 'retry' || !behaviour.retryHeaders) return request;
  return { ...request, headers: { ...request.headers, ...behaviour.retryHeaders(spec.attempt ?? 2, spec.reason ?? 'http_error') } };
}

/** The status, or undefined when nothing answered within `timeoutMs`. */
async function post(request: SignedRequest, timeoutMs: number, timers: Timers): Promise<number | undefined> {
  const controller = new AbortController();
  const timer = timers.after(timeoutMs, () => controller.abort());
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      signal: controller.signal,
      ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  } finally {
    timer.cancel();
  }
}

export async function runPlan(target: ChaosTarget, plan: Plan, options: RunOptions): Promise<RunResult> {
  const run = await target.open();
  try {
    return await sendAll(run, plan, options);
  } finally {
    await run.close();
  }
}

async function sendAll(run: RunTarget, plan: Plan, options: RunOptions): Promise<RunResult> {
  const sends: ChaosSend[] = [];
  const after: Snapshot[] = [];
  const queue: Step[] = [...plan.steps];
  // Retries in the order they fall due; `due` counts steps already sent.
  const retries: { due: number; spec: SendSpec }[] = [];
  let step = 0;
  while (queue.length > 0 || retries.length > 0) {
    const dueAt = retries.findIndex((r) => r.due <= step);
    const next: Step = dueAt >= 0 ? [retries.splice(dueAt, 1)[0]!.spec] : (queue.shift() ?? [retries.shift()!.spec]);
    step++;
    const statuses = await Promise.all(
      next.map((spec) => {
        const { provider } = spec.delivery.fixture;
        const request = requestFor(spec, options.secrets.get(provider)!, run.url, options.timers.now());
        return post(request, PROVIDER_BEHAVIOUR[provider].timeoutMs, options.timers);
      }),
    );
    next.forEach((spec, i) => {
      const status = statuses[i];
      const { delivery } = spec;
      sends.push({
        step,
        fixture: delivery.fixture.name,
        file: delivery.file,
        kind: spec.kind,
        ...(spec.attempt === undefined ? {} : { attempt: spec.attempt }),
        ...(spec.kind === 'stale' ? { deliveryId: spec.staleId! } : delivery.deliveryId === undefined ? {} : { deliveryId: delivery.deliveryId }),
        ...(status === undefined ? {} : { status }),
      });
      const rule = plan.retries.get(delivery.index);
      const attempt = (spec.attempt ?? 1) + 1;
      if (rule && (spec.kind === 'delivery' || spec.kind === 'retry') && !delivered(status) && attempt - 1 <= rule.attempts) {
        retries.push({ due: step + rule.gap, spec: { delivery, kind: 'retry', attempt, reason: failureReason(status) } });
      }
    });
    if (options.observe) after.push(await run.snapshot());
  }
  return { sends, snapshot: after.at(-1) ?? (await run.snapshot()), after };
}
