/**
 * What `hookbench expose` prints on standard output, declared once for the CLI that writes it and
 * the extension that reads it (it runs the same command as a child process), and the variables it
 * is given tokens in. Log lines go to standard error in the serve process's format, beside the
 * one line that says why it could not start or why it ended.
 */
import { SECRET_ENV } from './providers';

/** The providers of a public URL, in the order the pick offers them. */
export const EXPOSE_PROVIDERS = ['smee', 'ngrok', 'cloudflared', 'stripe'] as const;
export type ExposeProvider = (typeof EXPOSE_PROVIDERS)[number];

export function isExposeProvider(name: string): name is ExposeProvider {
  return (EXPOSE_PROVIDERS as readonly string[]).includes(name);
}

/** `forwarding <public url> → <to>`: printed once, when deliveries can flow. */
export const forwardingLine = (publicUrl: string, to: string): string => `forwarding ${publicUrl} → ${to}`;
export const FORWARDING_LINE = /^forwarding (\S+) → (\S+)$/;

/**
 * `signing secret whsec_…`: the secret `stripe listen` signs with for this session. The extension
 * hands it to the receiver and never logs the line.
 */
export const signingSecretLine = (secret: string): string => `signing secret ${secret}`;
export const SIGNING_SECRET_LINE = /^signing secret (whsec_[A-Za-z0-9_]+)$/;

/** After the signing secret line: how to give it to a receiver by hand. It repeats the secret. */
export const signingSecretAdvice = (secret: string): string =>
  `stripe listen signs with it, not with your dashboard endpoint's secret: restart the receiver with it, as in ${SECRET_ENV.stripe}=${secret} hookbench serve (VS Code's Expose Receiver does this itself)`;
const REPEATS_SIGNING_SECRET = new RegExp(`${SECRET_ENV.stripe}=whsec_`);

/** Whether `line` carries the session's signing secret as the advice writes it: never to be logged. */
export function repeatsSigningSecret(line: string): boolean {
  return REPEATS_SIGNING_SECRET.test(line);
}

/**
 * `missed deliveries between <ISO> and <ISO>: …`: the relay was disconnected and keeps no history,
 * so whatever the provider sent meanwhile never arrives; the rest of the line says how to redeliver.
 */
export const missedLine = (from: Date, to: Date, advice: string): string =>
  `missed deliveries between ${from.toISOString()} and ${to.toISOString()}: ${advice}`;
export const MISSED_LINE = /^missed deliveries between (\S+) and (\S+): (.*)$/;

/** How to get back what a relay's gap lost: the providers keep what they sent. */
export const REDELIVER_ADVICE =
  "smee.io keeps no history, so anything sent meanwhile did not arrive. Redeliver it from the provider: GitHub's Recent Deliveries (the webhook's settings → Recent Deliveries → Redeliver), Stripe's resend (Dashboard → Developers → Webhooks → the event → Resend, or `stripe events resend evt_…`).";

/** `new smee channel <url>`: the channel made for this run; the extension keeps it for the next. */
export const newChannelLine = (channel: string): string => `new smee channel ${channel}`;
export const NEW_CHANNEL_LINE = /^new smee channel (\S+)$/;

/**
 * `hookbench expose <provider>: <why>[; or give <flag> …]` on standard error: why it could not start,
 * or why it ended, and the way out on the command line when there is one.
 */
export const exposeFailureLine = (provider: ExposeProvider, why: string, flagHint?: string): string =>
  `hookbench expose ${provider}: ${why}${flagHint ? `; or give ${flagHint}` : ''}`;

/** The why of a failure line, without its command-line way out (VS Code offers its own); any other line as it is. */
export function exposeFailure(line: string): string {
  return line.replace(/^hookbench expose \w+: /, '').replace(/; or give --\S.*$/, '');
}

/** The smee.io channel to reuse (whoever has its URL can read the deliveries: the extension keeps it secret). */
export const SMEE_CHANNEL_ENV = 'HOOKBENCH_SMEE_CHANNEL';
/** ngrok's own variable for its authtoken. */
export const NGROK_TOKEN_ENV = 'NGROK_AUTHTOKEN';

/** What `stripe listen` forwards from has no public URL: the forwarding line names the provider instead. */
export const STRIPE_SOURCE = 'stripe';
