/**
 * The bindings of a wrangler config beyond Durable Objects: `kv_namespaces`, `d1_databases`,
 * `r2_buckets`, `queues` (producers and consumers with their batch settings and wrangler's
 * defaults), `services` to the worker itself, and `triggers.crons`. A binding Hookbench cannot
 * run (a service binding to another worker) is refused here with one line naming it.
 */
import { ConfigError } from './configErrors';
import { parseCron } from '../cron';

export interface NamedStore {
  readonly binding: string;
  /** What identifies the data: bindings with the same id share it, as on Cloudflare. */
  readonly id: string;
}

export interface QueueProducer {
  readonly binding: string;
  readonly queue: string;
  readonly deliveryDelaySeconds: number;
}

export interface QueueConsumer {
  readonly queue: string;
  readonly maxBatchSize: number;
  readonly maxBatchTimeoutMs: number;
  readonly maxRetries: number;
  readonly deadLetterQueue?: string;
  readonly retryDelaySeconds: number;
  /** Batches in flight at once (`max_concurrency`); absent or null in the config: the platform's 250. */
  readonly maxConcurrency?: number;
}

export interface ServiceBinding {
  readonly binding: string;
  /** The named entrypoint (an exported WorkerEntrypoint class), or the default export. */
  readonly entrypoint?: string;
}

export interface BindingsConfig {
  readonly name: string | undefined;
  readonly kvNamespaces: readonly NamedStore[];
  readonly d1Databases: readonly NamedStore[];
  readonly r2Buckets: readonly NamedStore[];
  readonly queueProducers: readonly QueueProducer[];
  readonly queueConsumers: readonly QueueConsumer[];
  readonly services: readonly ServiceBinding[];
  readonly crons: readonly string[];
  /** `ratelimits`: `{ name, namespace_id, simple: { limit, period } }`. */
  readonly rateLimits?: readonly RateLimitBinding[];
  /** `analytics_engine_datasets`: `{ binding, dataset }`. */
  readonly analyticsEngine?: readonly AnalyticsEngineBinding[];
  /** `send_email`: `{ name, destination_address, allowed_destination_addresses, allowed_sender_addresses }`. */
  readonly sendEmail?: readonly SendEmailBinding[];
  /** `browser`: the Browser Rendering binding's name (bindings/browser.ts). */
  readonly browser?: string;
}

export interface RateLimitBinding {
  readonly binding: string;
  readonly namespaceId: string;
  readonly limit: number;
  /** Seconds: 10 or 60, as on Cloudflare. */
  readonly period: number;
}

export interface AnalyticsEngineBinding {
  readonly binding: string;
  readonly dataset: string;
}

export interface SendEmailBinding {
  readonly binding: string;
  readonly destinationAddress?: string;
  readonly allowedDestinationAddresses?: readonly string[];
  readonly allowedSenderAddresses?: readonly string[];
}

/** The config keys these bindings read (for the list of supported keys). */
export const BINDING_KEYS = [
  'vars',
  'kv_namespaces',
  'd1_databases',
  'r2_buckets',
  'queues',
  'services',
  'triggers',
  'ratelimits',
  'analytics_engine_datasets',
  'send_email',
  'browser',
] as const;

type Raw = Record<string, unknown>;

function list(file: string, config: Raw, key: string): Raw[] {
  const value = config[key] ?? [];
  if (!Array.isArray(value) || value.some((v) => !v || typeof v !== 'object')) throw new ConfigError(`${file}: ${key} must be a list of objects`);
  return value as Raw[];
}

function text(file: string, where: string, entry: Raw, key: string, required: true): string;
function text(file: string, where: string, entry: Raw, key: string, required?: false): string | undefined;
function text(file: string, where: string, entry: Raw, key: string, required = false): string | undefined {
  const value = entry[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') throw new ConfigError(`${file}: ${where} needs a "${key}" string`);
  return value;
}

/** Cloudflare's ceiling for a consumer's concurrent invocations, and what it scales to when unset. */
export const MAX_CONCURRENCY = 250;

function count(file: string, where: string, entry: Raw, key: string, fallback: number, min: number, max: number): number {
  const value = entry[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${file}: ${where}.${key} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function stores(file: string, config: Raw, key: string, idKeys: readonly string[]): NamedStore[] {
  return list(file, config, key).map((entry, i) => {
    const binding = text(file, `${key}[${i}]`, entry, 'binding', true);
    const id = idKeys.map((k) => entry[k]).find((v): v is string => typeof v === 'string' && v !== '') ?? binding;
    return { binding, id };
  });
}

/** `browser = { binding = "BROWSER" }` (one binding per worker, as wrangler's config takes). */
function browserBinding(file: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`${file}: browser must be an object like { "binding": "BROWSER" }`);
  return text(file, 'browser', value as Raw, 'binding', true);
}

/** The periods a rate limit may count over, in seconds (Cloudflare's and Miniflare's). */
export const RATE_LIMIT_PERIODS: readonly number[] = [10, 60];

function rateLimits(file: string, config: Raw): RateLimitBinding[] {
  return list(file, config, 'ratelimits').map((entry, i) => {
    const where = `ratelimits[${i}]`;
    const simple = entry['simple'] as Raw | undefined;
    const limit = simple?.['limit'];
    const period = simple?.['period'];
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)
      throw new ConfigError(`${file}: ${where}.simple.limit must be a whole number of requests`);
    if (typeof period !== 'number' || !RATE_LIMIT_PERIODS.includes(period)) throw new ConfigError(`${file}: ${where}.simple.period must be 10 or 60 (seconds)`);
    return { binding: text(file, where, entry, 'name', true), namespaceId: String(entry['namespace_id'] ?? ''), limit, period };
  });
}

function addresses(file: string, where: string, entry: Raw, key: string): string[] | undefined {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new ConfigError(`${file}: ${where}.${key} must be a list of email addresses`);
  return value as string[];
}

function sendEmail(file: string, config: Raw): SendEmailBinding[] {
  return list(file, config, 'send_email').map((entry, i) => {
    const where = `send_email[${i}]`;
    const destination = text(file, where, entry, 'destination_address');
    const allowedDestinations = addresses(file, where, entry, 'allowed_destination_addresses');
    const allowedSenders = addresses(file, where, entry, 'allowed_sender_addresses');
    return {
      binding: text(file, where, entry, 'name', true),
      ...(destination !== undefined ? { destinationAddress: destination } : {}),
      ...(allowedDestinations ? { allowedDestinationAddresses: allowedDestinations } : {}),
      ...(allowedSenders ? { allowedSenderAddresses: allowedSenders } : {}),
    };
  });
}

export function readBindingsConfig(file: string, config: Raw): BindingsConfig {
  const name = typeof config['name'] === 'string' ? config['name'] : undefined;
  const queues = (config['queues'] ?? {}) as Raw;
  if (typeof queues !== 'object' || Array.isArray(queues)) throw new ConfigError(`${file}: queues must be an object with "producers" and/or "consumers"`);
  const queueProducers = list(file, queues, 'producers').map((entry, i) => ({
    binding: text(file, `queues.producers[${i}]`, entry, 'binding', true),
    queue: text(file, `queues.producers[${i}]`, entry, 'queue', true),
    deliveryDelaySeconds: count(file, `queues.producers[${i}]`, entry, 'delivery_delay', 0, 0, 43_200),
  }));
  const queueConsumers = list(file, queues, 'consumers').map((entry, i) => {
    const where = `queues.consumers[${i}]`;
    if (entry['type'] !== undefined && entry['type'] !== 'worker')
      throw new ConfigError(`${file}: ${where} is a "${String(entry['type'])}" consumer; Hookbench runs worker consumers only`);
    return {
      queue: text(file, where, entry, 'queue', true),
      maxBatchSize: count(file, where, entry, 'max_batch_size', 10, 1, 100),
      maxBatchTimeoutMs: count(file, where, entry, 'max_batch_timeout', 5, 0, 60) * 1000,
      maxRetries: count(file, where, entry, 'max_retries', 3, 0, 100),
      deadLetterQueue: text(file, where, entry, 'dead_letter_queue'),
      retryDelaySeconds: count(file, where, entry, 'retry_delay', 0, 0, 43_200),
      maxConcurrency: entry['max_concurrency'] === null ? undefined : count(file, where, entry, 'max_concurrency', MAX_CONCURRENCY, 1, MAX_CONCURRENCY),
    };
  });
  const services = list(file, config, 'services').map((entry, i) => {
    const where = `services[${i}]`;
    const binding = text(file, where, entry, 'binding', true);
    const service = text(file, where, entry, 'service', true);
    if (service !== name) {
      throw new ConfigError(
        `${file}: service binding ${binding} points at the worker "${service}", and Hookbench runs one worker ("${name ?? 'unnamed'}"); bind to this worker's own entrypoints, or run both workers under \`wrangler dev\` and attach the explorer to it`,
      );
    }
    return { binding, entrypoint: text(file, where, entry, 'entrypoint') };
  });
  const triggers = (config['triggers'] ?? {}) as Raw;
  const crons = triggers['crons'] ?? [];
  if (!Array.isArray(crons) || crons.some((c) => typeof c !== 'string')) throw new ConfigError(`${file}: triggers.crons must be a list of cron strings`);
  for (const cron of crons as string[]) {
    try {
      parseCron(cron);
    } catch (error) {
      throw new ConfigError(`${file}: triggers.crons: ${(error as Error).message}`);
    }
  }
  const browser = browserBinding(file, config['browser']);
  return {
    name,
    ...(browser !== undefined ? { browser } : {}),
    kvNamespaces: stores(file, config, 'kv_namespaces', ['id', 'preview_id']),
    d1Databases: stores(file, config, 'd1_databases', ['database_id', 'preview_database_id', 'database_name']),
    r2Buckets: stores(file, config, 'r2_buckets', ['bucket_name', 'preview_bucket_name']),
    queueProducers,
    queueConsumers,
    services,
    crons: crons as string[],
    rateLimits: rateLimits(file, config),
    analyticsEngine: list(file, config, 'analytics_engine_datasets').map((entry, i) => {
      const binding = text(file, `analytics_engine_datasets[${i}]`, entry, 'binding', true);
      return { binding, dataset: text(file, `analytics_engine_datasets[${i}]`, entry, 'dataset') ?? binding };
    }),
    sendEmail: sendEmail(file, config),
  };
}
