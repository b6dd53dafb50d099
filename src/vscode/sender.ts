/**
 * Signs and POSTs test webhooks and replays for the commands: the secret from the workspace
 * worker's .dev.vars or from SecretStorage (set on the spot when missing, the receiver restarted and ready before the send goes out), a short
 * notification of the answer (a duplicate said so), and failures that name what happened and
 * what to do, never a bare "fetch failed".
 */
import * as vscode from 'vscode';
import { DUPLICATE_NOTE, OUTCOME_HEADER, SOURCE_HEADER } from '../core/contract/deliveries';
import type { Logger } from '../core/log';
import { schemeFor, type ProviderName } from '../core/signing';
import type { Secrets } from './secrets';
import type { ServerController } from './receiver/serverController';

export interface SendResult {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
  readonly url: string;
  /** The receiver answered 200 but had processed this delivery id before. */
  readonly duplicate: boolean;
}

/** Shown as the notification's text: what happened and what to do. */
export class SendError extends Error {}

export class Sender {
  constructor(
    private readonly logger: Logger,
    private readonly server: ServerController,
    private readonly secrets: Secrets,
  ) {}

  /**
   * The provider's secret: the workspace worker's own (its .dev.vars, which it verifies with), else
   * the stored one; when neither is set, offers to set it and waits for the receiver to take it.
   */
  async secretFor(provider: ProviderName): Promise<string | undefined> {
    const env = schemeFor(provider).shape.secretEnv;
    const secret = this.server.workerSecrets()[env] || (await this.secrets.get(env));
    if (secret) return secret;
    this.logger.info(`no ${env} is set: asking for it before the ${provider} webhook is signed`);
    const choice = await vscode.window.showWarningMessage(`No ${env} is set, so the ${provider} webhook cannot be signed.`, 'Set Webhook Secret');
    if (!choice) return undefined;
    // The command restarts the receiver with the new secret and returns once it listens.
    await vscode.commands.executeCommand('hookbench.secret.set', env);
    return this.secrets.get(env);
  }

  /** The local receiver's URL, once it runs with the current secrets. */
  async localBase(): Promise<string> {
    try {
      return await this.server.ready();
    } catch (error) {
      throw new SendError(
        `The receiver could not start (${(error as Error).message.split('\n')[0]}). See Hookbench: Show Log, then Hookbench: Start Receiver.`,
      );
    }
  }

  /** POSTs as Hookbench's sender (or a replay): the receiver records the delivery's source from the header. */
  async post(url: string, headers: Record<string, string>, body: Buffer, what = 'webhook', source: 'send' | 'replay' = 'send'): Promise<SendResult> {
    const started = performance.now();
    let response: Response;
    try {
      const own = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== SOURCE_HEADER));
      response = await fetch(url, { method: 'POST', headers: { ...own, [SOURCE_HEADER]: source }, body });
    } catch (error) {
      const cause = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? (error as Error).message;
      this.logger.warn(`POST ${url} failed: ${cause}`);
      const local = this.server.url !== undefined && url.startsWith(this.server.url);
      throw new SendError(
        local || /^http:\/\/(127\.0\.0\.1|localhost)/.test(url)
          ? `Could not reach the receiver at ${new URL(url).origin} (${cause}). Start it with Hookbench: Start Receiver, or see Hookbench: Show Log.`
          : `Could not reach ${new URL(url).origin} (${cause}). Check the URL and that the server is up.`,
      );
    }
    const text = await response.text();
    const duplicate = response.headers.get(OUTCOME_HEADER) === 'duplicate';
    const result: SendResult = { status: response.status, body: text, ms: performance.now() - started, url, duplicate };
    this.logger.info(`POST ${url} → ${result.status}${duplicate ? ` (${DUPLICATE_NOTE})` : ''} in ${result.ms.toFixed(1)} ms: ${text.slice(0, 200)}`);
    const summary = `${what}: ${result.status} ${response.statusText} in ${result.ms.toFixed(0)} ms${duplicate ? ` — ${DUPLICATE_NOTE}` : `: ${text.slice(0, 120) || '(empty)'}`}`;
    if (response.ok && !duplicate) void vscode.window.showInformationMessage(summary);
    else void vscode.window.showWarningMessage(summary);
    return result;
  }
}
