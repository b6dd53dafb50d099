/**
 * What `send --fixture` and `replay` share: fixtures read for the command line (a broken one is a
 * usage error naming the file and field), each provider's secret from the same places `serve`
 * reads it (the environment's conventional name, or an env file), and one POST that reports what
 * went wrong in a line.
 */
import * as fs from 'node:fs';
import { FixtureError } from '../../core/contract/fixtures';
import { collectFixturePaths, readFixtureFile, type FixtureFile } from '../../core/fixtures/fixtureFiles';
import type { SignedRequest } from '../../core/fixtures/signedRequest';
import { parseDevVars } from '../../core/runtime/wranglerConfig';
import { schemeFor, type ProviderName } from '../../core/signing';
import { UsageError } from './args';

/** Every fixture named by `targets`, all read before anything is sent. */
export function loadFixtures(targets: readonly string[]): FixtureFile[] {
  try {
    const files = collectFixturePaths(targets).map(readFixtureFile);
    if (files.length === 0) throw new UsageError(`no fixture files (*.json) in ${targets.join(', ')}`);
    return files;
  } catch (error) {
    if (error instanceof FixtureError) throw new UsageError(error.message);
    throw error;
  }
}

/** The variables of `--env-file`, or none. */
export function envFileVars(file: string | undefined): Record<string, string> {
  if (file === undefined) return {};
  try {
    return parseDevVars(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read --env-file ${file}: ${(error as Error).message}`);
  }
}

/** The provider's secret from the env file, then the environment, under its conventional name (GITHUB_WEBHOOK_SECRET…). */
export function providerSecret(provider: ProviderName, env: NodeJS.ProcessEnv, fileVars: Record<string, string>): string {
  const name = schemeFor(provider).shape.secretEnv;
  const value = fileVars[name] || env[name];
  if (!value) throw new UsageError(`no ${provider} secret: set ${name} in the environment or in --env-file (it is never stored in a fixture)`);
  return value;
}

export interface Answer {
  readonly status: number;
  readonly statusText: string;
  readonly body: string;
  readonly ms: number;
}

/** Sends the request; rejects with a one-line message when nothing answered. */
export async function post(request: SignedRequest): Promise<Answer> {
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(request.url, { method: request.method, headers: request.headers, ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }) });
  } catch (error) {
    throw new Error(`${request.url}: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`);
  }
  const body = await response.text();
  return { status: response.status, statusText: response.statusText, body, ms: performance.now() - started };
}
