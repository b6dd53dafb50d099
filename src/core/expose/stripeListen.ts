/**
 * The Stripe CLI's `stripe listen --forward-to <receiver>/webhooks/stripe`: Stripe sends the
 * account's test events over the CLI's WebSocket, the CLI posts each to the receiver with the
 * original bytes and a `Stripe-Signature` made with a per-session secret, which it prints once:
 * `Ready! You are using Stripe API Version [2025-10-29.clover]. Your webhook signing secret is
 * whsec_… (^C to quit)` (standard error; with a `> ` prefix and bold on a terminal). That secret
 * is this session's STRIPE_WEBHOOK_SECRET. Since 1.52 `listen` wants the events named
 * (`--all-snapshot` for every classic event); earlier versions forward all events by default and
 * do not know the flag, so `stripe listen --help` says which applies.
 */
import { execFile } from 'node:child_process';
import { SOURCE_HEADER } from '../contract/deliveries';
import type { Logger } from '../log';
import { findOnPath, startBinary, type RunningBinary, type Spawn } from './binary';
import { webhookPath } from '../contract/webhookRoutes';
import { ExposeError } from './errors';

export const STRIPE_MISSING =
  'the Stripe CLI (stripe) is not on the PATH: install it with npm install -g @stripe/cli (or see https://docs.stripe.com/stripe-cli), run stripe login once, then try again';
export const STRIPE_NOT_LOGGED_IN =
  'the Stripe CLI is not logged in: run stripe login once in a terminal (or set STRIPE_API_KEY to a test-mode key), then try again';

/** The receiver route Stripe's events go to. */
export const stripeRoute = (to: string): string => `${to.replace(/\/+$/, '')}${webhookPath('stripe')}`;

export interface StripeArgsOptions {
  /** `--all-snapshot`, which `stripe listen` requires since 1.52 and earlier versions refuse. */
  readonly allSnapshot: boolean;
  /** Another Stripe API base (`--api-base`): only the tests' local stand-in sets it. */
  readonly apiBase?: string;
}

export function stripeListenArgs(to: string, options: StripeArgsOptions): string[] {
  return [
    'listen',
    '--forward-to',
    stripeRoute(to),
    // The receiver records these deliveries as coming through `stripe listen`.
    '--headers',
    `${SOURCE_HEADER}:stripe`,
    ...(options.allSnapshot ? ['--all-snapshot'] : []),
    '--skip-update',
    '--color',
    'off',
    ...(options.apiBase ? ['--api-base', options.apiBase] : []),
  ];
}

/** Whether `stripe listen --help` offers `--all-snapshot` (Stripe CLI 1.52 and later). */
export const offersAllSnapshot = (help: string): boolean => /--all-snapshot\b/.test(help);

/** The session's signing secret from the ready line, or undefined for any other line. */
export function signingSecretOf(line: string): string | undefined {
  return /Your webhook signing secret is (whsec_[A-Za-z0-9_]+)/.exec(line)?.[1];
}

/** The one line that says why `stripe listen` ended before it was ready. */
export function explainStripe(lines: readonly string[], exit: string): string {
  const text = lines.join('\n');
  if (/You have not configured API keys yet|not logged in|stripe login/i.test(text)) return STRIPE_NOT_LOGGED_IN;
  // logrus quotes the message without escaping the quotes inside it: take the line up to its last quote.
  const fatal = /level=(?:fatal|error) msg="(.*)"\s*$/m.exec(text)?.[1];
  const last = fatal ?? lines.filter((l) => l.trim() !== '' && !/^Getting ready/.test(l)).at(-1) ?? '';
  return `stripe listen exited (${exit})${last ? `: ${last}` : ''}`;
}

export interface StripeListenOptions {
  readonly to: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly apiBase?: string;
  readonly spawn?: Spawn;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

function help(file: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve) => {
    execFile(file, ['listen', '--help'], { env, timeout: 15_000 }, (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`));
  });
}

/** Starts `stripe listen`; resolves with the session's signing secret once it is ready. */
export async function startStripeListen(options: StripeListenOptions): Promise<RunningBinary<string>> {
  const file = findOnPath('stripe', options.env);
  if (!file) throw new ExposeError(STRIPE_MISSING, 'missing-binary');
  const args = stripeListenArgs(options.to, { allSnapshot: offersAllSnapshot(await help(file, options.env)), apiBase: options.apiBase });
  // Until it is ready, what it prints is in the log at debug level only: a failure is explained in one line.
  const log = (line: string, ready: boolean) => {
    if (line.trim() === '') return;
    // The ready line holds the secret: it never reaches a log.
    if (signingSecretOf(line)) return options.logger.info("[stripe] ready: stripe listen printed this session's signing secret");
    if (!ready) options.logger.debug(`[stripe] ${line}`);
    else if (/level=(fatal|error)|\[ERROR\]/.test(line)) options.logger.error(`[stripe] ${line}`);
    else options.logger.info(`[stripe] ${line}`);
  };
  return startBinary({
    file,
    args,
    env: options.env,
    logger: options.logger,
    spawn: options.spawn,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    ready: (line) => {
      log(line, false);
      return signingSecretOf(line);
    },
    explain: explainStripe,
    onLine: (line) => log(line, true),
  });
}
