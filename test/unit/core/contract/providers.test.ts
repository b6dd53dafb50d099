// The providers' names both processes use: the missing-secret message the serve process logs reads
// back in the extension, which rewrites it into its own way of setting the secret.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { noSecretMessage, PROVIDER_TITLES, PROVIDERS, replaceNoSecret, SECRET_ENV } from '../../../../src/core/contract/providers';

describe('the providers contract', () => {
  it("rewrites the serve process's missing-secret message with the variable it names", () => {
    const logged = `[security] rejected a github webhook for acme/widgets: no_secret: ${noSecretMessage(SECRET_ENV.github)}`;
    assert.equal(
      replaceNoSecret(logged, (env) => `set ${env} in VS Code`),
      '[security] rejected a github webhook for acme/widgets: no_secret: set GITHUB_WEBHOOK_SECRET in VS Code',
    );
    assert.equal(
      replaceNoSecret('another line', () => 'never'),
      'another line',
    );
  });

  it('names every provider and its secret variable once', () => {
    assert.deepEqual(Object.keys(PROVIDER_TITLES).sort(), [...PROVIDERS].sort());
    assert.equal(new Set(Object.values(SECRET_ENV)).size, PROVIDERS.length);
  });
});
