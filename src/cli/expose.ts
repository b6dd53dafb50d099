/**
 * `hookbench expose <smee|ngrok|cloudflared|stripe>`: a public URL whose deliveries reach the local
 * receiver. Prints `forwarding <public url> → <to>` once deliveries can flow, then runs until
 * SIGINT/SIGTERM (or, with --exit-with-parent, until standard input closes). A provider that
 * cannot start (a missing binary or token) is one line on standard error and exit 1.
 */
import { exposeFailureLine, forwardingLine, isExposeProvider, EXPOSE_PROVIDERS, SMEE_CHANNEL_ENV, type ExposeProvider } from '../core/contract/expose';
import { DEFAULT_RECEIVER_URL, webhookPath } from '../core/contract/webhookRoutes';
import { ExposeError } from '../core/expose/errors';
import { lineLogger } from '../core/log';
import { parseFlags, UsageError } from './args';
import { startSession } from './exposeSession';
import type { CliIo } from './io';

export const exposeUsage = `Usage: hookbench expose <smee|ngrok|cloudflared|stripe> [--to ${DEFAULT_RECEIVER_URL}]
         [--channel URL] [--path /webhooks/github] [--smee-server https://smee.io] [--exit-with-parent]
  Forwards a public URL's deliveries to the local receiver (--to: its base URL) and prints
  "forwarding <public url> → <to>" once ready; runs until Ctrl+C. Give the public URL (with the
  webhook route, such as /webhooks/github) to the provider.
  smee         a smee.io channel: --channel URL or HOOKBENCH_SMEE_CHANNEL, or a new one. Every
               delivery is posted to --path on the receiver (/webhooks/github), never where the
               event says. smee.io forwards parsed JSON, not the provider's bytes: a signature over
               other bytes fails, and the delivery says "relayed: body re-encoded by the relay".
  ngrok        an ngrok tunnel to the receiver; the authtoken comes from NGROK_AUTHTOKEN.
  cloudflared  a Cloudflare quick tunnel (cloudflared on the PATH; no account).
  stripe       stripe listen --forward-to <to>/webhooks/stripe (the Stripe CLI on the PATH, logged
               in); prints this session's signing secret for STRIPE_WEBHOOK_SECRET.
  Through a tunnel only the webhook routes (/webhooks/…) answer: the admin API, the agents routes
  and the render emulator refuse a public Host with 403 (docs/expose.md).`;

/** The receiver's base URL: http(s), no path or query (each provider picks its route). */
function receiverBase(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--to ${text} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--to is an http:// or https:// URL');
  if (url.pathname !== '/' || url.search !== '')
    throw new UsageError(`--to is the receiver's base URL, like ${DEFAULT_RECEIVER_URL} (give the route with --path)`);
  return url.origin;
}

/** The smee route: a webhook route of the receiver, never the admin API or the agents routes. */
function deliveryPath(text: string): string {
  if (!text.startsWith('/') || text.startsWith('//') || /[?#\s]/.test(text)) throw new UsageError(`--path ${text}: give a path such as /webhooks/github`);
  if (/^\/(__hookbench|agents)(\/|$)/i.test(text))
    throw new UsageError(`--path ${text}: public deliveries go to webhook routes only (/webhooks/…), never to /__hookbench/ or /agents/`);
  return text;
}

function channelUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.toString();
  } catch {
    // below
  }
  throw new UsageError(`--channel ${text}: give a smee channel URL such as https://smee.io/AbC123`);
}

/** Resolves when the user or the parent asks to stop. */
function stopRequested(exitWithParent: boolean): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
    if (exitWithParent) {
      process.stdin.once('end', () => resolve());
      process.stdin.once('close', () => resolve());
      process.stdin.resume();
    }
  });
}

export async function expose(argv: string[], io: CliIo): Promise<number> {
  const [provider, ...rest] = argv;
  if (provider === undefined || provider.startsWith('-')) throw new UsageError(`name a provider: ${EXPOSE_PROVIDERS.join(', ')}`);
  if (!isExposeProvider(provider)) throw new UsageError(`unknown provider "${provider}": ${EXPOSE_PROVIDERS.join(', ')}`);
  const values = parseFlags(rest, {
    to: { type: 'string', default: DEFAULT_RECEIVER_URL },
    channel: { type: 'string' },
    path: { type: 'string' },
    'smee-server': { type: 'string', default: 'https://smee.io' },
    'exit-with-parent': { type: 'boolean', default: false },
  });
  if (provider !== 'smee' && (values.channel !== undefined || values.path !== undefined)) throw new UsageError('--channel and --path apply to smee');
  const to = receiverBase(values.to);
  const channelText = values.channel ?? io.env[SMEE_CHANNEL_ENV];
  const channel = provider === 'smee' && channelText ? channelUrl(channelText) : undefined;
  const path = deliveryPath(values.path ?? webhookPath('github'));
  const logger = lineLogger((line) => io.stderr.write(line + '\n'), (io.env['HOOKBENCH_LOG_LEVEL'] as 'info' | undefined) ?? 'info');
  const out = (line: string) => io.stdout.write(line + '\n');

  // Listening for Ctrl+C from the start: a stop while the provider starts ends its program too.
  const starting = new AbortController();
  const stop = stopRequested(values['exit-with-parent']).then(() => starting.abort());
  let session;
  try {
    session = await startSession({ provider, to, channel, smeeServer: values['smee-server'], path, env: io.env, logger, out, signal: starting.signal });
  } catch (error) {
    if (!(error instanceof ExposeError)) throw error;
    if (starting.signal.aborted) return 0;
    io.stderr.write(`${exposeFailureLine(provider, error.message, channelHint(provider, error))}\n`);
    exitSoon(1);
    return 1;
  }
  out(forwardingLine(session.publicUrl, session.target));
  if (provider === 'smee')
    out(`paste ${session.publicUrl} as the webhook's URL at the provider (GitHub: content type application/json; smee.io refuses form-encoded deliveries)`);
  else if (provider === 'stripe') out('trigger a test event with: stripe trigger payment_intent.succeeded');
  else
    out(
      `paste ${session.publicUrl}/webhooks/<provider> at the provider (GitHub: ${session.publicUrl}/webhooks/github, Stripe: ${session.publicUrl}/webhooks/stripe); only /webhooks/ routes answer the public host`,
    );

  const ended = await Promise.race([stop.then(() => undefined), session.ended ?? new Promise<never>(() => undefined)]);
  if (ended) io.stderr.write(`${exposeFailureLine(provider, ended)}\n`);
  await session.stop();
  exitSoon(ended ? 1 : 0);
  return ended ? 1 : 0;
}

/** Where smee.io could not make a channel, the way out on the command line: bring one. */
function channelHint(provider: ExposeProvider, error: ExposeError): string | undefined {
  return provider === 'smee' && (error.code === 'unreachable' || error.code === 'refused') ? '--channel URL' : undefined;
}

/** A native tunnel library, a lingering socket or the signal listeners must not keep a stopped relay alive. */
function exitSoon(code: number): void {
  setTimeout(() => process.exit(code), 2000).unref();
}
