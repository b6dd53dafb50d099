/**
 * `hookbench send`: signs a template (or a file) as the provider would and POSTs it, printing the
 * status, the response body and the time taken.
 */
import * as fs from 'node:fs';
import { SOURCE_HEADER } from '../core/contract/deliveries';
import { DEFAULT_RECEIVER_URL, webhookPath } from '../core/contract/webhookRoutes';
import { answerText } from '../core/fixtures/runFixture';
import { allTemplates, buildDelivery, findTemplate, templatesFor } from '../core/payloads';
import { isProviderName, schemeFor, type ProviderName } from '../core/signing';
import { httpUrl, parseFlags, UsageError } from './args';
import { post, secretFor } from './fixtureIo';
import type { CliIo } from './io';
import { sendFixture } from './sendFixture';

export const sendUsage = `Usage: hookbench send --provider P --event NAME [--entity ID] [--to URL | --url URL] [--payload FILE]
         [--secret-env NAME | --secret S] [--env-file FILE] [--header "Name: value"]... [--dry-run]
       hookbench send --fixture FILE [--to URL | --url URL] [--new-id] [--env-file FILE]
         [--secret-env NAME | --secret S] [--dry-run]
       hookbench send --list [--provider P]
  Signs the event's template (or the raw bytes of --payload, with the template's headers) with the
  provider's scheme and POSTs it to the local receiver's /webhooks/P[/ID] (--to another receiver,
  default ${DEFAULT_RECEIVER_URL}), or to --url exactly. --entity goes where the provider keeps it
  (GitHub repository, Stripe customer, Twilio AccountSid, Slack team, Shopify shop domain). The
  secret is --secret, --secret-env's variable, or the provider's own variable (GITHUB_WEBHOOK_SECRET…)
  from the environment or --env-file. Says when the receiver took it as a duplicate. Exits 0 on a
  2xx answer, 1 otherwise.
  --fixture sends a saved delivery (docs/fixtures.md) with its exact bytes, path and headers,
  re-signed with its provider's secret (the same three places), to --to plus its path, or to --url
  as given. --new-id gives it a fresh delivery id
  so a receiver that saw it processes it again.`;

function list(io: CliIo, provider: ProviderName | undefined): number {
  const templates = provider ? templatesFor(provider) : allTemplates();
  for (const t of templates) io.stdout.write(`${t.provider.padEnd(9)} ${t.event.padEnd(44)} ${t.description}\n`);
  return 0;
}

function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new UsageError(`--header "${text}" is not "Name: value"`);
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

export async function send(argv: string[], io: CliIo): Promise<number> {
  const values = parseFlags(argv, {
    provider: { type: 'string' },
    url: { type: 'string' },
    event: { type: 'string' },
    entity: { type: 'string' },
    payload: { type: 'string' },
    secret: { type: 'string' },
    'secret-env': { type: 'string' },
    header: { type: 'string', multiple: true },
    list: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    fixture: { type: 'string' },
    to: { type: 'string' },
    'new-id': { type: 'boolean', default: false },
    'env-file': { type: 'string' },
  });
  if (values.fixture !== undefined) {
    const stray = (['provider', 'event', 'entity', 'payload', 'header'] as const).filter((flag) => values[flag] !== undefined);
    if (stray.length > 0 || values.list)
      throw new UsageError(
        `--fixture brings its own provider, event and body: drop ${[...stray.map((f) => `--${f}`), ...(values.list ? ['--list'] : [])].join(', ')}`,
      );
    return sendFixture({ ...values, fixture: values.fixture }, io);
  }
  if (values['new-id']) throw new UsageError('--new-id goes with --fixture (a template gets a fresh delivery id each time)');
  if (values.provider !== undefined && !isProviderName(values.provider)) throw new UsageError(`unknown provider "${values.provider}"`);
  const provider = values.provider as ProviderName | undefined;
  if (values.list) return list(io, provider);
  if (!provider) throw new UsageError('--provider is required');
  if (!values.event) throw new UsageError(`--event is required (hookbench send --list --provider ${provider} shows them)`);
  const template = findTemplate(provider, values.event);
  if (!template) throw new UsageError(`no ${provider} event "${values.event}" (hookbench send --list --provider ${provider} shows them)`);
  const url = targetUrl(values, provider);
  const secret = secretFor(values, provider, io.env);

  const delivery = buildDelivery(template, { entity: values.entity });
  let body = delivery.body;
  if (values.payload) {
    try {
      body = fs.readFileSync(values.payload);
    } catch (error) {
      throw new UsageError(`cannot read --payload ${values.payload}: ${(error as Error).message}`);
    }
  }
  let signed;
  try {
    signed = schemeFor(provider).sign({ secret, body, url: url.toString() });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // The receiver records the delivery as a test send (SOURCE_HEADER); a deployed worker ignores it.
  const headers: Record<string, string> = { ...delivery.headers, ...signed.headers, [SOURCE_HEADER]: 'send' };
  for (const text of values.header ?? []) {
    const [name, value] = parseHeader(text);
    // A --header replaces the template's header of that name, whatever its case.
    for (const key of Object.keys(headers)) if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
    headers[name] = value;
  }
  const target = signed.url ?? url.toString();
  if (values['dry-run']) {
    io.stdout.write(
      `POST ${target}\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n\n${body.toString('utf8')}\n`,
    );
    return 0;
  }
  let answer;
  try {
    answer = await post({ method: 'POST', url: target, headers, body });
  } catch (error) {
    io.stderr.write(`hookbench send: ${(error as Error).message}\n`);
    return 1;
  }
  io.stdout.write(answerText(answer));
  return answer.status >= 200 && answer.status < 300 ? 0 : 1;
}

/** --url as given, else the receiver (--to, or the local one) plus the provider's webhook route. */
function targetUrl(values: { url?: string | undefined; to?: string | undefined; entity?: string | undefined }, provider: ProviderName): URL {
  if (values.url !== undefined && values.to !== undefined)
    throw new UsageError('give --url (the whole URL) or --to (the receiver, keeping the webhook route), not both');
  if (values.url !== undefined) return httpUrl(values.url, '--url');
  return new URL(webhookPath(provider, values.entity), httpUrl(values.to ?? DEFAULT_RECEIVER_URL, '--to'));
}
