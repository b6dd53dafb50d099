import * as fs from 'node:fs';
import { parseFlags, parseTime, readStdin, secretFrom, UsageError } from './args';
import { schemeFromFlags, SIGNING_FLAGS } from './signingFlags';
import type { CliIo } from './io';

export const signUsage = `Usage: hookbench sign --provider P (--secret-env NAME | --secret S) [--url U]
         [--timestamp T] [--id I] [--body-file F] < body
  Prints {"headers":{…}} (and "url" when Twilio signs a JSON body's URL).
  P: github, stripe, twilio, slack, shopify, standard, generic
  generic also takes --signature-header H --algorithm sha1|sha256|sha512 --encoding hex|base64 --prefix X`;

/** `hookbench sign`: signs the raw bytes of stdin (or --body-file) and prints the headers as JSON. */
export async function sign(argv: string[], io: CliIo): Promise<number> {
  const values = parseFlags(argv, { ...SIGNING_FLAGS, timestamp: { type: 'string' }, id: { type: 'string' } });
  const scheme = schemeFromFlags(values);
  const secret = secretFrom(values, io.env);
  const body = values['body-file'] ? fs.readFileSync(values['body-file']) : await readStdin(io.stdin);
  if (scheme.name === 'twilio' && !values.url) throw new UsageError('Twilio signs the full request URL: pass --url');
  try {
    const out = scheme.sign({
      secret,
      body,
      ...(values.url === undefined ? {} : { url: values.url }),
      ...(values.timestamp === undefined ? {} : { timestamp: parseTime(values.timestamp, '--timestamp') }),
      ...(values.id === undefined ? {} : { id: values.id }),
    });
    io.stdout.write(JSON.stringify(out) + '\n');
    return 0;
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
}
