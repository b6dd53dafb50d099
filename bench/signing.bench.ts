// Verifications per second per provider on 1 KiB and 1 MiB bodies, against a bare node:crypto
// loop doing the primitive work the scheme itself requires (the same HMACs and hashes over the
// same bytes), in the same run. Issue target: ratio ≥ 0.8.
import { execFileSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { normalizeHeaders, schemeFor, type ProviderName } from '../src/core/signing';
import { compareThroughput, report, type BenchResult } from './harness';

const SECRET = 'bench-secret-0123456789';
const STANDARD_SECRET = 'whsec_' + Buffer.from(SECRET).toString('base64');
const URL_ = 'https://hooks.example.com/webhooks/twilio/AC1';

function jsonBody(size: number): Buffer {
  const pad = size - '{"data":""}'.length;
  return Buffer.from(JSON.stringify({ data: 'x'.repeat(pad) }));
}

function formBody(size: number): Buffer {
  const pad = size - 'AccountSid=AC1&Body='.length;
  return Buffer.from(`AccountSid=AC1&Body=${'y'.repeat(pad)}`);
}

interface Case {
  readonly provider: ProviderName;
  readonly label: string;
  readonly body: (size: number) => Buffer;
  /** The primitive work the scheme requires, with nothing of ours around it. */
  readonly bare: (body: Buffer) => () => unknown;
}

const T = 1_790_000_000;
const hmacHex = (alg: string, key: string | Buffer, ...parts: (string | Buffer)[]) => {
  const mac = createHmac(alg, key);
  for (const p of parts) mac.update(p);
  return mac.digest();
};

const CASES: Case[] = [
  { provider: 'github', label: 'github', body: jsonBody, bare: (b) => () => hmacHex('sha256', SECRET, b) },
  { provider: 'stripe', label: 'stripe', body: jsonBody, bare: (b) => () => hmacHex('sha256', SECRET, `${T}.`, b) },
  { provider: 'slack', label: 'slack', body: jsonBody, bare: (b) => () => hmacHex('sha256', SECRET, `v0:${T}:`, b) },
  { provider: 'shopify', label: 'shopify', body: jsonBody, bare: (b) => () => hmacHex('sha256', SECRET, b) },
  {
    provider: 'standard',
    label: 'standard',
    body: jsonBody,
    bare: (b) => {
      const key = Buffer.from(SECRET);
      return () => hmacHex('sha256', key, `msg_1.${T}.`, b);
    },
  },
  { provider: 'generic', label: 'generic', body: jsonBody, bare: (b) => () => hmacHex('sha256', SECRET, b) },
  {
    provider: 'twilio',
    label: 'twilio (JSON, bodySHA256)',
    body: jsonBody,
    bare: (b) => () => {
      const hash = createHash('sha256').update(b).digest('hex');
      return hmacHex('sha1', SECRET, `${URL_}?bodySHA256=${hash}`);
    },
  },
  {
    provider: 'twilio',
    label: 'twilio (form)',
    body: formBody,
    bare: (b) => () => {
      const params = new URLSearchParams(b.toString('utf8'));
      let text = URL_;
      for (const key of [...params.keys()].sort()) text += key + params.get(key);
      return hmacHex('sha1', SECRET, text);
    },
  },
];

function verifier(c: Case, body: Buffer): () => unknown {
  const scheme = schemeFor(c.provider);
  const secret = c.provider === 'standard' ? STANDARD_SECRET : SECRET;
  const signed = scheme.sign({ secret, body, url: URL_, timestamp: T, id: 'msg_1' });
  const headers = normalizeHeaders(signed.headers);
  const url = signed.url ?? URL_;
  const now = () => T * 1000;
  return () => {
    const result = scheme.verify({ secret, body, headers, url }, { now });
    if (!result.valid) throw new Error(`${c.label}: ${result.message}`);
    return result;
  };
}

const SIZES = [
  [1024, '1 KiB', 9],
  [1024 * 1024, '1 MiB', 5],
] as const;

/** One case in this process: `--case <size index>:<case index>` prints its result as JSON. */
function measure(sizeIndex: number, caseIndex: number): BenchResult {
  const [size, sizeLabel, rounds] = SIZES[sizeIndex]!;
  const c = CASES[caseIndex]!;
  const body = c.body(size);
  const { value, baselineValue } = compareThroughput(verifier(c, body), c.bare(body), rounds);
  return {
    name: `verify ${c.label}, ${sizeLabel}`,
    unit: 'verifications/s',
    value,
    baseline: 'bare node:crypto loop, same primitives',
    baselineValue,
    ratio: value / baselineValue,
    target: 0.8,
  };
}

const only = process.argv.indexOf('--case');
if (only > 0) {
  const [sizeIndex, caseIndex] = process.argv[only + 1]!.split(':').map(Number);
  process.stdout.write(JSON.stringify(measure(sizeIndex!, caseIndex!)) + '\n');
} else {
  // Each case in a fresh process, so that no case runs with call sites another case made polymorphic.
  const results: BenchResult[] = [];
  SIZES.forEach((_, sizeIndex) =>
    CASES.forEach((_, caseIndex) => {
      const out = execFileSync(process.execPath, [__filename, '--case', `${sizeIndex}:${caseIndex}`], { encoding: 'utf8' });
      results.push(JSON.parse(out) as BenchResult);
    }),
  );
  report('signing', results);
}
