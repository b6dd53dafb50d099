/**
 * `hookbench render`: renders a page through the local emulator (default) or Cloudflare, with an
 * installed or injected font, writes the image or PDF, and with --font-report prints which fonts
 * really drew each element.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLOUDFLARE_API, RenderClient, RenderClientError } from '../core/browserRendering/client';
import { RENDER_TOKEN_ENV } from '../core/contract/serveEnvironment';
import { FontFaceError } from '../core/browserRendering/fontFace';
import { previewBody, type PreviewFont } from '../core/browserRendering/previewBody';
import type { FontReport } from '../core/browserRendering/fontReportAnswer';
import { parseFlags, UsageError } from './args';
import type { CliIo } from './io';

export const renderUsage = `Usage: hookbench render (--url U | --html-file F) [--endpoint screenshot|pdf|content|markdown|...]
         [--font FAMILY | --font-file F [--font-weight W] [--font-style S]] [--fallback sans-serif]
         [--viewport 1280x800] [--base URL] [--account ID] [--token-env NAME] [--cloudflare]
         [--no-font-wait] [--font-report] [--out FILE]
  Renders through the local emulator of "hookbench serve" (--base http://127.0.0.1:8788/client/v4,
  token from HOOKBENCH_RENDER_TOKEN) or, with --cloudflare, through Cloudflare's API (--account and
  the token in the variable --token-env names, CLOUDFLARE_API_TOKEN by default). --font applies an
  installed family; --font-file injects a font file as a base64 @font-face rule. Binary answers go
  to --out; JSON answers are printed. --font-report (local emulator only) prints, per element with
  text, the fonts that drew it and whether they are fallbacks.`;

function viewport(text: string | undefined): { width: number; height: number } | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+)x(\d+)$/.exec(text);
  if (!match) throw new UsageError('--viewport is WIDTHxHEIGHT, like 1280x800');
  return { width: Number(match[1]), height: Number(match[2]) };
}

type Flags = Record<string, string | boolean | undefined>;

function font(values: Flags): PreviewFont | undefined {
  const fallback = (values['fallback'] as PreviewFont['fallback']) ?? 'sans-serif';
  if (values['font'] && values['font-file']) throw new UsageError('give --font or --font-file, not both');
  if (typeof values['font'] === 'string') return { kind: 'installed', family: values['font'], fallback };
  const file = values['font-file'];
  if (typeof file !== 'string') return undefined;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read --font-file ${file}: ${(error as Error).message}`);
  }
  const family = path.basename(file).replace(/\.[^.]+$/, '');
  return {
    kind: 'custom',
    family,
    source: { bytes, fileName: path.basename(file) },
    weight: values['font-weight'] as string | undefined,
    style: values['font-style'] as 'normal' | undefined,
    fallback,
  };
}

function printReport(report: FontReport & { fontsReady?: string }, io: CliIo): void {
  for (const element of report.elements) {
    const fonts = element.fonts
      .map(
        (f) =>
          `${f.family}${f.custom ? ' (web font)' : ''} ×${f.glyphs}${f.standIn ? ` [stands in for ${f.requestedAs}]` : f.requestedAs ? '' : ' [not requested]'}`,
      )
      .join(', ');
    io.stdout.write(
      `${element.fallback ? 'FALLBACK' : 'ok      '} ${element.selector}  "${element.text}"\n         asked: ${element.requested.join(', ')}\n         drawn: ${fonts}\n`,
    );
  }
  if (report.fontsReady) io.stdout.write(`fonts: ${report.fontsReady}\n`);
}

export async function render(argv: string[], io: CliIo): Promise<number> {
  const values = parseFlags(argv, {
    url: { type: 'string' },
    'html-file': { type: 'string' },
    endpoint: { type: 'string', default: 'screenshot' },
    font: { type: 'string' },
    'font-file': { type: 'string' },
    'font-weight': { type: 'string' },
    'font-style': { type: 'string' },
    fallback: { type: 'string' },
    viewport: { type: 'string' },
    base: { type: 'string' },
    account: { type: 'string' },
    'token-env': { type: 'string' },
    cloudflare: { type: 'boolean', default: false },
    'no-font-wait': { type: 'boolean', default: false },
    'font-report': { type: 'boolean', default: false },
    out: { type: 'string' },
  });
  if ((values.url === undefined) === (values['html-file'] === undefined)) throw new UsageError('give --url or --html-file');
  const html = values['html-file'] !== undefined ? fs.readFileSync(values['html-file'], 'utf8') : undefined;
  const tokenEnv = values['token-env'] ?? (values.cloudflare ? 'CLOUDFLARE_API_TOKEN' : RENDER_TOKEN_ENV);
  const token = io.env[tokenEnv];
  if (!token) throw new UsageError(`the environment variable ${tokenEnv} (the API token) is not set`);
  if (values.cloudflare && !values.account) throw new UsageError('--cloudflare needs --account ID');
  const client = new RenderClient({
    baseUrl: values.base ?? (values.cloudflare ? CLOUDFLARE_API : 'http://127.0.0.1:8788/client/v4'),
    accountId: values.account ?? 'local',
    token,
  });

  let body: Record<string, unknown>;
  try {
    body = previewBody({ url: values.url, html, viewport: viewport(values.viewport), font: font(values) });
  } catch (error) {
    if (error instanceof FontFaceError) throw new UsageError(error.message);
    throw error;
  }
  const waitForFonts = !values['no-font-wait'];
  try {
    if (values['font-report']) {
      printReport(await client.fontReport<FontReport>(body, { waitForFonts }), io);
      if (!values.out) return 0;
    }
    const answer = await client.render(values.endpoint, body, { waitForFonts });
    if (answer.kind === 'json') {
      const text = typeof answer.result === 'string' ? answer.result : JSON.stringify(answer.result, null, 2);
      if (values.out) fs.writeFileSync(values.out, text);
      else io.stdout.write(text + '\n');
    } else {
      if (!values.out) throw new UsageError(`${values.endpoint} answers ${answer.contentType}: give --out FILE`);
      fs.writeFileSync(values.out, answer.bytes);
      io.stdout.write(`wrote ${values.out} (${answer.contentType}, ${answer.bytes.length} bytes, ${answer.browserMsUsed ?? '?'} browser ms)\n`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof RenderClientError)) throw error;
    io.stderr.write(`hookbench render: ${error.status || 'no answer'}${error.codes.length ? ` [${error.codes.join(', ')}]` : ''}: ${error.message}\n`);
    return 1;
  }
}
