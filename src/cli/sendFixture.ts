/**
 * `hookbench send --fixture FILE`: a saved delivery sent again, re-signed with its provider's
 * secret, to the local receiver (or `--to` another origin, or `--url` exactly), printing the
 * status, the response body and the time taken like `send` does.
 */
import { signedRequest } from '../core/fixtures/signedRequest';
import { httpUrl, UsageError } from './args';
import { answerText } from '../core/fixtures/runFixture';
import { loadFixtures, post, secretFor } from './fixtureIo';
import type { CliIo } from './io';

export interface SendFixtureFlags {
  readonly fixture: string;
  readonly url?: string | undefined;
  readonly to?: string | undefined;
  readonly secret?: string | undefined;
  readonly 'secret-env'?: string | undefined;
  readonly 'env-file'?: string | undefined;
  readonly 'new-id'?: boolean | undefined;
  readonly 'dry-run'?: boolean | undefined;
}

export async function sendFixture(values: SendFixtureFlags, io: CliIo): Promise<number> {
  if (values.url !== undefined && values.to !== undefined)
    throw new UsageError("give --url (the whole URL) or --to (the receiver, keeping the fixture's path), not both");
  if (values.url !== undefined) httpUrl(values.url, '--url');
  if (values.to !== undefined) httpUrl(values.to, '--to');
  const [{ fixture }] = loadFixtures([values.fixture]) as [ReturnType<typeof loadFixtures>[number]];
  const secret = secretFor(values, fixture.provider, io.env);
  let request;
  try {
    request = signedRequest(fixture, { secret, base: values.to, url: values.url, newId: values['new-id'] ?? false, source: 'send' });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values['dry-run']) {
    io.stdout.write(
      `${request.method} ${request.url}\n${Object.entries(request.headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n\n${request.body.toString('utf8')}\n`,
    );
    return 0;
  }
  let answer;
  try {
    answer = await post(request);
  } catch (error) {
    io.stderr.write(`hookbench send: ${(error as Error).message}\n`);
    return 1;
  }
  io.stdout.write(answerText(answer));
  return answer.status >= 200 && answer.status < 300 ? 0 : 1;
}
