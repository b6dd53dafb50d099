/**
 * A smee.io subscriber that forwards each delivery to one fixed local webhook route
 * (docs/expose.md, "smee.io's protocol"):
 * - subscribes with `Accept: text/event-stream` (exactly: smee.io serves its HTML page otherwise);
 *   `ready` and `ping` only keep the connection alive, each `message` is a delivery;
 * - forwards deliveries one at a time, in the order they arrived, each exactly once; a receiver
 *   that refuses the connection (restarting) is retried a few times, an HTTP answer never is;
 * - after a drop (the stream ends, fails, is silent past `stallMs`, or sends an event or a line
 *   over `maxEvent`, never held in memory), reconnects at once, one connection at a time, so
 *   nothing arrives twice. Event ids restart at 0 on every connection and smee.io replays nothing,
 *   so ids are never used to skip anything; what the provider sent between the last byte heard
 *   and the new `ready` is gone, and `onDidMiss` says so.
 */
import { SOURCE_HEADER } from '../contract/deliveries';
import { Emitter } from '../events';
import type { Logger } from '../log';
import { realTimers, type TimerHandle, type Timers } from '../timers';
import { ExposeError } from './errors';
import { SseParser, type SseEvent } from './sse';
import { forwardRequest, SmeeEventError, type BodyState } from './smeeEvent';

export interface SmeeClientOptions {
  /** The channel URL, such as `https://smee.io/AbC123`. */
  readonly channel: string;
  /** The fixed local route every delivery goes to. */
  readonly target: URL;
  readonly logger: Logger;
  readonly fetch?: typeof fetch;
  readonly timers?: Timers;
  readonly now?: () => Date;
  /** Silence after which a connection counts as dead: smee.io pings every 30 s. */
  readonly stallMs?: number;
  /** Waits between failed reconnection attempts (the first reconnection after a drop is immediate). */
  readonly retryMs?: readonly number[];
  /** Waits before posting again to a receiver that refused the connection. */
  readonly deliveryRetryMs?: readonly number[];
  readonly requestTimeoutMs?: number;
  /** The largest event or line the stream may send (MAX_SSE_EVENT characters); past it the connection is dropped. */
  readonly maxEvent?: number;
}

/** What became of one delivery. */
export interface DeliveryResult {
  readonly label: string;
  readonly url: string;
  readonly bodyState: BodyState;
  /** The receiver's answer, or undefined when it could not be reached. */
  readonly status?: number;
  readonly error?: string;
}

export interface Gap {
  readonly from: Date;
  readonly to: Date;
}

interface Outcome {
  readonly wasReady: boolean;
  readonly error?: Error;
}

const causeOf = (error: unknown): string => {
  const cause = (error as Error)?.cause as NodeJS.ErrnoException | undefined;
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
};

export class SmeeClient {
  private readonly delivered = new Emitter<DeliveryResult>();
  /** Each delivery forwarded (or given up on), in order. */
  readonly onDidDeliver = this.delivered.event;
  private readonly missed = new Emitter<Gap>();
  /** A reconnection after a drop: deliveries sent within the gap did not arrive. */
  readonly onDidMiss = this.missed.event;

  private readonly fetch: typeof fetch;
  private readonly timers: Timers;
  private readonly now: () => Date;
  private stopped = false;
  private connection: AbortController | undefined;
  /** Wakes every wait in progress (a reconnection delay, a delivery retry) when the client stops. */
  private readonly sleepers = new Set<() => void>();
  private queue: Promise<void> = Promise.resolve();
  private lastHeard: Date;

  constructor(private readonly options: SmeeClientOptions) {
    this.fetch = options.fetch ?? fetch;
    this.timers = options.timers ?? realTimers;
    this.now = options.now ?? (() => new Date());
    this.lastHeard = this.now();
  }

  /** Subscribes; resolves when the relay says `ready`, rejects with an {@link ExposeError} when the first connection fails. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => void this.run(resolve, reject));
  }

  /** Stops subscribing; resolves when the deliveries already received have been forwarded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.connection?.abort();
    for (const wake of [...this.sleepers]) wake();
    await this.queue;
    this.delivered.dispose();
    this.missed.dispose();
  }

  private async run(ready: () => void, fail: (error: Error) => void): Promise<void> {
    let everReady = false;
    let lost: Date | undefined;
    let failures = 0;
    while (!this.stopped) {
      const outcome = await this.connect(() => {
        if (!everReady) {
          everReady = true;
          ready();
        } else if (lost) {
          this.options.logger.info(`[smee] reconnected to ${this.options.channel}`);
          this.missed.fire({ from: lost, to: this.now() });
        }
        lost = undefined;
        failures = 0;
      });
      if (this.stopped) {
        if (!everReady) fail(new ExposeError('stopped before smee said ready', 'failed'));
        return;
      }
      if (!everReady) {
        this.stopped = true;
        return fail(
          outcome.error instanceof ExposeError
            ? outcome.error
            : new ExposeError(
                `could not subscribe to ${this.options.channel}: ${outcome.error ? causeOf(outcome.error) : 'the stream ended before smee said ready'}`,
                'unreachable',
              ),
        );
      }
      if (outcome.wasReady) {
        // A drop: from the last byte heard, nothing sent to the channel reaches us until the next `ready`.
        lost ??= this.lastHeard;
        this.options.logger.warn(
          `[smee] the connection to ${this.options.channel} dropped${outcome.error ? ` (${causeOf(outcome.error)})` : ''}; reconnecting`,
        );
        continue;
      }
      const retry = this.options.retryMs ?? [1000, 2000, 5000, 10_000, 30_000];
      const wait = retry[Math.min(failures++, retry.length - 1)] ?? 30_000;
      this.options.logger.warn(
        `[smee] could not reconnect to ${this.options.channel} (${outcome.error ? causeOf(outcome.error) : 'no ready event'}); trying again in ${wait / 1000} s`,
      );
      await this.sleep(wait);
    }
  }

  /** One subscription, until its stream ends, fails, stalls, or the client stops. */
  private async connect(onReady: () => void): Promise<Outcome> {
    const controller = new AbortController();
    this.connection = controller;
    let wasReady = false;
    let stall: TimerHandle | undefined;
    const arm = () => {
      stall?.cancel();
      stall = this.timers.after(this.options.stallMs ?? 90_000, () =>
        controller.abort(new Error(`no event or ping for ${(this.options.stallMs ?? 90_000) / 1000} s`)),
      );
    };
    try {
      arm();
      const response = await this.fetch(this.options.channel, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
      const type = response.headers.get('content-type') ?? '';
      if (response.status !== 200 || !type.startsWith('text/event-stream')) {
        await response.body?.cancel();
        const what =
          response.status === 404
            ? 'no such channel'
            : response.status !== 200
              ? `HTTP ${response.status}`
              : `${type || 'no content type'} instead of an event stream`;
        return {
          wasReady,
          error: new ExposeError(
            `${this.options.channel} answered ${what}: give a smee channel URL such as https://smee.io/AbC123 (or none, for a new one)`,
            'refused',
          ),
        };
      }
      if (!response.body) return { wasReady };
      const reader = response.body.getReader();
      const parser = new SseParser(this.options.maxEvent);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { wasReady };
        arm();
        this.lastHeard = this.now();
        for (const event of parser.feed(value)) {
          if (event.type === 'ready') {
            wasReady = true;
            onReady();
          } else if (event.type === 'message') this.enqueue(event);
        }
        // Dropped and reconnected as any broken stream: nothing of it is held on to.
        if (parser.failure) throw new Error(parser.failure);
      }
    } catch (error) {
      return { wasReady, error: (controller.signal.reason as Error | undefined) ?? (error as Error) };
    } finally {
      stall?.cancel();
      // The old stream is closed before any new one opens: one connection at a time.
      controller.abort();
      if (this.connection === controller) this.connection = undefined;
    }
  }

  private enqueue(event: SseEvent): void {
    this.queue = this.queue.then(() => this.forward(event)).catch((error: unknown) => this.options.logger.error(`[smee] ${causeOf(error)}`));
  }

  private async forward(event: SseEvent): Promise<void> {
    let request;
    try {
      request = forwardRequest(event.data, this.options.target);
    } catch (error) {
      if (!(error instanceof SmeeEventError)) throw error;
      this.options.logger.warn(`[smee] skipped event ${event.id}: ${error.message}`);
      return;
    }
    const headers = { ...request.headers, [SOURCE_HEADER]: `smee; body=${request.bodyState}` };
    const retries = this.options.deliveryRetryMs ?? [500, 1000, 2000, 4000, 8000];
    const base = { label: request.label, url: request.url, bodyState: request.bodyState };
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.fetch(request.url, {
          method: 'POST',
          headers,
          body: request.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 30_000),
        });
        await response.arrayBuffer();
        this.delivered.fire({ ...base, status: response.status });
        return;
      } catch (error) {
        const wait = retries[attempt];
        if (wait === undefined || this.stopped) {
          this.delivered.fire({ ...base, error: causeOf(error) });
          return;
        }
        this.options.logger.warn(`[smee] the receiver at ${new URL(request.url).origin} did not answer (${causeOf(error)}); trying again in ${wait} ms`);
        await this.sleep(wait);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        handle.cancel();
        this.sleepers.delete(wake);
        resolve();
      };
      const handle = this.timers.after(ms, wake);
      this.sleepers.add(wake);
    });
  }
}

/** A new channel from a smee server: `GET /new` answers a redirect to it. */
export async function createChannel(server: string, fetchFn: typeof fetch = fetch): Promise<string> {
  const url = new URL('/new', server);
  let response: Response;
  try {
    response = await fetchFn(url, { method: 'GET', redirect: 'manual' });
  } catch (error) {
    throw new ExposeError(`could not reach ${url.origin} to create a smee channel (${causeOf(error)}): check the network`, 'unreachable');
  }
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (response.status < 300 || response.status >= 400 || !location)
    throw new ExposeError(`${url.origin}/new answered ${response.status} instead of a new channel`, 'refused');
  return new URL(location, url).toString();
}
