/**
 * One provider's public URL for `hookbench expose`, started and ready: the URL to give the
 * provider, the local URL deliveries go to, and how to stop it. What each prints while it runs
 * goes to `out` (lines of src/core/contract/expose.ts) and to the log.
 */
import { RELAY_REENCODED_NOTE } from '../core/contract/deliveries';
import {
  MISSED_LINE,
  missedLine,
  newChannelLine,
  REDELIVER_ADVICE,
  signingSecretAdvice,
  signingSecretLine,
  STRIPE_SOURCE,
  type ExposeProvider,
} from '../core/contract/expose';
import type { Logger } from '../core/log';
import { startCloudflared } from '../core/expose/cloudflared';
import { ExposeError } from '../core/expose/errors';
import { startNgrok } from '../core/expose/ngrok';
import { createChannel, SmeeClient, type DeliveryResult } from '../core/expose/smeeClient';
import { startStripeListen, stripeRoute } from '../core/expose/stripeListen';

export interface ExposeSession {
  /** What a provider is given: the channel or tunnel URL (for `stripe listen`, the word `stripe`). */
  readonly publicUrl: string;
  /** Where deliveries go on this machine. */
  readonly target: string;
  /** Resolves with a reason if the provider's program ends on its own. */
  readonly ended?: Promise<string>;
  stop(): Promise<void>;
}

export interface SessionOptions {
  readonly provider: ExposeProvider;
  /** The receiver's base URL. */
  readonly to: string;
  readonly channel?: string;
  readonly smeeServer: string;
  readonly path: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly out: (line: string) => void;
  /** Aborted when the user stops `expose` while the provider is still starting. */
  readonly signal: AbortSignal;
}

/** One line per delivery the smee client forwarded: the receiver's answer and, for a re-encoded body that failed, why. */
export function deliveryLine(result: DeliveryResult): string {
  const path = new URL(result.url).pathname;
  if (result.status === undefined)
    return `not delivered: ${result.label} → ${path} (${result.error ?? 'no answer'}): is the receiver running? Redeliver it from the provider once it is`;
  const rejected = result.status === 401 || result.status === 403;
  const note =
    rejected && result.bodyState === 'changed'
      ? ` — ${RELAY_REENCODED_NOTE}: smee.io forwards parsed JSON, not the bytes the provider signed, so no signature over them can hold; use ngrok or cloudflared to check signatures`
      : rejected && result.bodyState === 'same-length'
        ? ` — ${RELAY_REENCODED_NOTE} (same length: check the secret too)`
        : '';
  return `${result.status} ${result.label} → ${path}${note}`;
}

async function startSmee(options: SessionOptions): Promise<ExposeSession> {
  let channel = options.channel;
  if (!channel) {
    channel = await createChannel(options.smeeServer);
    options.out(newChannelLine(channel));
  }
  const target = new URL(options.path, options.to);
  const client = new SmeeClient({ channel, target, logger: options.logger });
  client.onDidDeliver((result) => options.out(deliveryLine(result)));
  const abort = () => void client.stop();
  options.signal.addEventListener('abort', abort);
  client.onDidMiss((gap) => {
    const line = missedLine(gap.from, gap.to, REDELIVER_ADVICE);
    options.logger.warn(`[smee] ${line.replace(MISSED_LINE, 'missed deliveries between $1 and $2')}`);
    options.out(line);
  });
  await client.start().finally(() => options.signal.removeEventListener('abort', abort));
  return { publicUrl: channel, target: target.toString(), stop: () => client.stop() };
}

export async function startSession(options: SessionOptions): Promise<ExposeSession> {
  switch (options.provider) {
    case 'smee':
      return startSmee(options);
    case 'ngrok': {
      const tunnel = await startNgrok({ to: options.to, env: options.env });
      if (options.signal.aborted) {
        await tunnel.stop();
        throw new ExposeError('ngrok was stopped before it was ready', 'failed');
      }
      return { publicUrl: tunnel.url, target: options.to, stop: () => tunnel.stop() };
    }
    case 'cloudflared': {
      const tunnel = await startCloudflared({ to: options.to, env: options.env, logger: options.logger, signal: options.signal });
      return { publicUrl: tunnel.value, target: options.to, ended: tunnel.exited.then((exit) => `cloudflared exited (${exit})`), stop: () => tunnel.stop() };
    }
    case 'stripe': {
      const listen = await startStripeListen({ to: options.to, env: options.env, logger: options.logger, signal: options.signal });
      options.out(signingSecretLine(listen.value));
      options.out(signingSecretAdvice(listen.value));
      return {
        publicUrl: STRIPE_SOURCE,
        target: stripeRoute(options.to),
        ended: listen.exited.then((exit) => `stripe listen exited (${exit})`),
        stop: () => listen.stop(),
      };
    }
  }
}
