/**
 * The provider secrets a receiver runs with: the stored ones (secrets.ts), with this session's
 * over them (`stripe listen`'s signing secret while it runs, never stored), and what the running
 * receiver was given, so a change restarts it only when it runs with something else.
 */
import type { Secrets } from '../secrets';

export class ServeSecrets {
  /** Secrets for this session only, over the stored ones. */
  private readonly session = new Map<string, string>();
  /** The secrets the running receiver was given. */
  private launched: string | undefined;

  constructor(private readonly stored: Pick<Secrets, 'asEnvironment'>) {}

  /** The secrets a receiver runs with: the stored ones, and this session's over them. */
  async environment(): Promise<Record<string, string>> {
    return { ...(await this.stored.asEnvironment()), ...Object.fromEntries(this.session) };
  }

  /** The secrets for a receiver being launched now: remembered as what it runs with. */
  async forLaunch(): Promise<Record<string, string>> {
    const secrets = await this.environment();
    this.launched = JSON.stringify(secrets);
    return secrets;
  }

  /** Whether the secrets differ from those the receiver was last launched with. */
  async changedSinceLaunch(): Promise<boolean> {
    return JSON.stringify(await this.environment()) !== this.launched;
  }

  /** Sets `env` for this session only (undefined: takes it back). */
  setSession(env: string, value: string | undefined): void {
    if (value === undefined) this.session.delete(env);
    else this.session.set(env, value);
  }
}
