/**
 * Provider secrets in VS Code's SecretStorage, never in settings: each is stored under its
 * environment variable name and handed to the serve process as environment.
 */
import type * as vscode from 'vscode';
import { PROVIDER_TITLES, PROVIDERS, SECRET_ENV, type ProviderName } from '../core/contract/providers';

/** Each provider's secret: who it is for, and the variable the serve process reads it from. */
export const PROVIDER_SECRETS: readonly { readonly provider: ProviderName; readonly title: string; readonly env: string }[] = PROVIDERS.map((provider) => ({
  provider,
  title: PROVIDER_TITLES[provider],
  env: SECRET_ENV[provider],
}));

const key = (env: string) => `hookbench.secret.${env}`;

export class Secrets {
  /**
   * Values this window stored or cleared: SecretStorage may answer a `get` right after a `store`
   * with the old value (code-server keeps it in the browser), and the receiver must restart with
   * the new one. This window's own writes are remembered and win.
   */
  private readonly known = new Map<string, string | undefined>();

  constructor(private readonly storage: vscode.SecretStorage) {}

  async get(env: string): Promise<string | undefined> {
    if (this.known.has(env)) return this.known.get(env);
    return this.storage.get(key(env));
  }

  async set(env: string, value: string): Promise<void> {
    this.known.set(env, value);
    await this.storage.store(key(env), value);
  }

  async clear(env: string): Promise<void> {
    this.known.set(env, undefined);
    await this.storage.delete(key(env));
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
      if (!event.key.startsWith('hookbench.secret.')) return;
      listener();
    });
  }
}
