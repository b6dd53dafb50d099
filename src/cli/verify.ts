import * as fs from 'node:fs';
import { normalizeHeaders } from '../core/signing';
import { parseFlags, parseTime, readStdin, secretFrom, UsageError } from './args';
import { schemeFromFlags, SIGNING_FLAGS } from './signingFlags';
import type { CliIo } from './io';

export const verifyUsage = `Usage: hookbench verify --provider P (--secret-env NAME | --secret S) --headers JSON
         [--url U] [--now T] [--tolerance SECONDS] [--body-file F] < body
  Exits 0 and prints {"valid":true} when the signature holds; exits 1 and prints
  {"valid":false,"reason":"…","message":"…"} when not. --now is Unix seconds or ISO 8601.`;

function parseHeaders(text: string | undefined): Record<string, string> {
  if (text === undefined) throw new UsageError('--headers JSON is required');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--headers is not valid JSON');
  }
  // Accept what `hookbench sign` prints as well as a bare header object.
  if (parsed && typeof parsed === 'object' && 'headers' in parsed) parsed = (parsed as { headers: unknown }).headers;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
    throw new UsageError('--headers must be a JSON object of header names to string values');
  }
  return parsed as Record<string, string>;
}

/** `hookbench verify`: checks a signature over the raw bytes of stdin (or --body-file). */
export async function verify(argv: string[], io: CliIo): Promise<number> {
  const values = parseFlags(argv, { ...SIGNING_FLAGS, headers: { type: 'string' }, now: { type: 'string' }, tolerance: { type: 'string' } });
  const scheme = schemeFromFlags(values);
  const secret = secretFrom(values, io.env);
  const headers = normalizeHeaders(parseHeaders(values.headers));
  const now = values.now === undefined ? undefined : parseTime(values.now, '--now') * 1000;
  const tolerance = values.tolerance === undefined ? undefined : Number(values.tolerance);
  if (tolerance !== undefined && !(Number.isInteger(tolerance) && tolerance >= 0)) throw new UsageError('--tolerance is a whole number of seconds');
  const body = values['body-file'] ? fs.readFileSync(values['body-file']) : await readStdin(io.stdin);
  const result = scheme.verify(
    { secret, body, headers, ...(values.url === undefined ? {} : { url: values.url }) },
    { ...(now === undefined ? {} : { now: () => now }), ...(tolerance === undefined ? {} : { toleranceSeconds: tolerance }) },
  );
  io.stdout.write(JSON.stringify(result) + '\n');
  return result.valid ? 0 : 1;
}
