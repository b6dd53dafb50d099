/**
 * Provider secrets in VS Code's SecretStorage, never in settings: each is stored under its
 * environment variable name and handed to the serve process as environment.
 */
import type * as vscode from 'vscode';

export const PROVIDER_SECRETS = [
  { provider: 'GitHub', env: 'GITHUB_WEBHOOK_SECRET' },
  { provider: 'Stripe', env: 'STRIPE_WEBHOOK_SECRET' },
  { provider: 'Twilio', env: 'TWILIO_AUTH_TOKEN' },
  { provider: 'Slack', env: 'SLACK_SIGNING_SECRET' },
  { provider: 'Shopify', env: 'SHOPIFY_WEBHOOK_SECRET' },
  { provider: 'Standard Webhooks', env: 'STANDARD_WEBHOOK_SECRET' },
  { provider: 'Generic (X-Signature)', env: 'GENERIC_WEBHOOK_SECRET' },
] as const;

const key = (env: string) => `hookbench.secret.${env}`;

export class Secrets {
  constructor(private readonly storage: vscode.SecretStorage) {}

  get(env: string): Thenable<string | undefined> {
    return this.storage.get(key(env));
  }

  set(env: string, value: string): Thenable<void> {
    return this.storage.store(key(env), value);
  }

  clear(env: string): Thenable<void> {
    return this.storage.delete(key(env));
  }

  /** Every configured provider secret, as environment for the serve process. */
  async asEnvironment(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const { env } of PROVIDER_SECRETS) {
      const value = await this.get(env);
      if (value) out[env] = value;
    }
    return out;
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.storage.onDidChange((event) => {
      if (event.key.startsWith('hookbench.secret.')) listener();
    });
  }
}
