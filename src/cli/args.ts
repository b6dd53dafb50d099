import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command-line mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `--flag value` options strictly; unknown flags and stray arguments are usage errors. */
export function parseFlags<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Parses `--flag value` options strictly, and the arguments that are no flag's (files, folders). */
export function parseFlagsAndPositionals<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** `text` as an http(s) URL; a usage error naming `flag` otherwise. */
export function httpUrl(text: string, flag: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol)) throw new UsageError(`${flag} ${text} is not an http(s) URL`);
  return url;
}

/** Reads all of standard input as raw bytes (nothing is trimmed or re-encoded). */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** The secret from `--secret` or the environment variable named by `--secret-env`. */
export function secretFrom(values: { secret?: string | undefined; 'secret-env'?: string | undefined }, env: NodeJS.ProcessEnv): string {
  if (values.secret !== undefined && values['secret-env'] !== undefined) throw new UsageError('give --secret or --secret-env, not both');
  if (values.secret !== undefined) return values.secret;
  const name = values['secret-env'];
  if (name === undefined) throw new UsageError('--secret-env NAME (or --secret S) is required');
  const value = env[name];
  if (!value) throw new UsageError(`the environment variable ${name} is not set`);
  return value;
}

/** Unix seconds given as digits, or an ISO 8601 date. */
export function parseTime(text: string, flag: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`${flag} must be Unix seconds or an ISO 8601 date`);
  return Math.floor(ms / 1000);
}
