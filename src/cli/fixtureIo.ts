/**
 * What `send --fixture` and `replay` share: fixtures read for the command line (a broken one is a
 * usage error naming the file and field), each provider's secret from the same places `serve`
 * reads it (the environment's conventional name, or an env file), and the core's `post`.
 */
import * as fs from 'node:fs';
import { FixtureError } from '../core/contract/fixtures';
import { collectFixturePaths, readFixtureFile, type FixtureFile } from '../core/fixtures/fixtureFiles';
import { parseDevVars } from '../core/workerConfig/wranglerConfig';
import { schemeFor, type ProviderName } from '../core/signing';
import { UsageError } from './args';

export { post } from '../core/fixtures/runFixture';

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

/** --secret, --secret-env's variable, or the provider's own variable from the environment or --env-file. */
export function secretFor(
  values: { secret?: string | undefined; 'secret-env'?: string | undefined; 'env-file'?: string | undefined },
  provider: ProviderName,
  env: NodeJS.ProcessEnv,
): string {
  if (values.secret !== undefined && values['secret-env'] !== undefined) throw new UsageError('give --secret or --secret-env, not both');
  if (values.secret !== undefined) return values.secret;
  if (values['secret-env'] !== undefined) {
    const value = env[values['secret-env']];
    if (!value) throw new UsageError(`the environment variable ${values['secret-env']} is not set`);
    return value;
  }
  return providerSecret(provider, env, envFileVars(values['env-file']));
}
