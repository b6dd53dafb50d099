import { createGeneric, schemeFor, type SignatureScheme } from '../core/signing';
import { UsageError } from './args';

/** Flags shared by `sign` and `verify`. */
export const SIGNING_FLAGS = {
  provider: { type: 'string' },
  secret: { type: 'string' },
  'secret-env': { type: 'string' },
  url: { type: 'string' },
  'body-file': { type: 'string' },
  'signature-header': { type: 'string' },
  algorithm: { type: 'string' },
  encoding: { type: 'string' },
  prefix: { type: 'string' },
} as const;

interface SchemeFlags {
  provider?: string | undefined;
  'signature-header'?: string | undefined;
  algorithm?: string | undefined;
  encoding?: string | undefined;
  prefix?: string | undefined;
}

/** The scheme named by `--provider`, with the generic scheme's options applied. */
export function schemeFromFlags(values: SchemeFlags): SignatureScheme {
  if (!values.provider) throw new UsageError('--provider is required');
  let scheme: SignatureScheme;
  try {
    scheme = schemeFor(values.provider);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const custom = values['signature-header'] ?? values.algorithm ?? values.encoding ?? values.prefix;
  if (custom === undefined) return scheme;
  if (scheme.name !== 'generic') throw new UsageError('--signature-header, --algorithm, --encoding and --prefix apply to --provider generic');
  const { algorithm, encoding } = values;
  if (algorithm !== undefined && !['sha1', 'sha256', 'sha512'].includes(algorithm)) throw new UsageError('--algorithm is sha1, sha256 or sha512');
  if (encoding !== undefined && !['hex', 'base64'].includes(encoding)) throw new UsageError('--encoding is hex or base64');
  return createGeneric({
    ...(values['signature-header'] === undefined ? {} : { header: values['signature-header'] }),
    ...(algorithm === undefined ? {} : { algorithm: algorithm as 'sha1' | 'sha256' | 'sha512' }),
    ...(encoding === undefined ? {} : { encoding: encoding as 'hex' | 'base64' }),
    ...(values.prefix === undefined ? {} : { prefix: values.prefix }),
  });
}
