/**
 * Send Test Webhook (provider → event → entity, the payload opened to tweak, signed with the
 * stored secret) and, on recorded deliveries, replay as received, replay re-signed now, and copy
 * as cURL. Secrets come from SecretStorage and only ever go into request headers.
 */
import * as vscode from 'vscode';
import { curlCommand, HOP_BY_HOP } from '../core/curl';
import type { DisposableStore } from '../core/events';
import type { Logger } from '../core/log';
import { buildDelivery, findTemplate, templatesFor } from '../core/payloads';
import { PROVIDERS, schemeFor, type ProviderName } from '../core/signing';
import type { DeliverySummary } from './client/adminClient';
import { registerCommand } from './commands';
import type { Secrets } from './secrets';
import type { ServerController } from './server/serverController';
import type { AgentNode } from './views/agentsTree';
import type { ExplorerSession } from './views/explorerSession';

export interface SendArgs {
  readonly provider?: ProviderName;
  readonly event?: string;
  readonly entity?: string;
  /** Where to POST; the local receiver's /webhooks/<provider>/<entity> by default. */
  readonly url?: string;
  /** The body to send instead of the template's (skips the editor). */
  readonly payload?: string;
}

export interface SendResult {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
  readonly url: string;
}

/** Headers a replay must not copy: the client sets them for the new connection. */
export function registerWebhookCommands(store: DisposableStore, logger: Logger, server: ServerController, secrets: Secrets, session: ExplorerSession): void {
  const secretFor = async (provider: ProviderName): Promise<string | undefined> => {
    const env = schemeFor(provider).shape.secretEnv;
    const secret = await secrets.get(env);
    if (secret) return secret;
    const choice = await vscode.window.showWarningMessage(`No ${env} is set, so the webhook cannot be signed.`, 'Set Webhook Secret');
    if (choice) await vscode.commands.executeCommand('hookbench.secret.set', env);
    return secrets.get(env);
  };

  const post = async (url: string, headers: Record<string, string>, body: Buffer): Promise<SendResult> => {
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body });
    const text = await response.text();
    const result = { status: response.status, body: text, ms: performance.now() - started, url };
    logger.info(`POST ${url} → ${result.status} in ${result.ms.toFixed(1)} ms: ${text.slice(0, 200)}`);
    const message = `${result.status} ${response.statusText} in ${result.ms.toFixed(0)} ms: ${text.slice(0, 120) || '(empty)'}`;
    if (response.ok) void vscode.window.showInformationMessage(message);
    else void vscode.window.showWarningMessage(message);
    return result;
  };

  registerCommand(store, logger, 'hookbench.webhook.send', async (raw?: unknown): Promise<SendResult | undefined> => {
    const args = (raw ?? {}) as SendArgs;
    const provider = args.provider ?? ((await vscode.window.showQuickPick([...PROVIDERS], { title: 'Send Test Webhook (1/3)', placeHolder: 'Provider' })) as ProviderName | undefined);
    if (!provider) return undefined;
    const event =
      args.event ??
      (await vscode.window.showQuickPick(templatesFor(provider).map((t) => ({ label: t.event, description: t.description })), { title: 'Send Test Webhook (2/3)', placeHolder: 'Event', matchOnDescription: true }))?.label;
    const template = event ? findTemplate(provider, event) : undefined;
    if (!template) return undefined;
    const entity = args.entity ?? (await vscode.window.showInputBox({ title: 'Send Test Webhook (3/3)', prompt: 'Entity: where this provider keeps it (repository, customer, account, team, shop). Empty keeps the template’s.' }));
    if (entity === undefined) return undefined;
    const delivery = buildDelivery(template, { entity: entity || undefined });
    let body = delivery.body;
    if (args.payload !== undefined) body = Buffer.from(args.payload);
    else {
      const doc = await vscode.workspace.openTextDocument({ language: delivery.headers['content-type']?.includes('json') ? 'json' : 'plaintext', content: body.toString('utf8') });
      await vscode.window.showTextDocument(doc);
      const go = await vscode.window.showInformationMessage(`Edit the ${provider} ${event} payload if you like, then send it.`, 'Send');
      if (go !== 'Send') return undefined;
      body = Buffer.from(doc.getText());
    }
    const base = server.url ?? (await server.start());
    const local = `${base}/webhooks/${provider}/${encodeURIComponent(entity || 'test')}`;
    let url = args.url ?? (args.payload !== undefined ? local : undefined);
    if (url === undefined) {
      const target = await vscode.window.showQuickPick([{ label: 'Local receiver', description: local, url: local }, { label: 'Another URL…', description: 'a tunnel, a deployed worker, another tool', url: '' }], { title: 'Send to' });
      if (!target) return undefined;
      url = target.url || (await vscode.window.showInputBox({ title: 'Send to URL', value: local, validateInput: (v) => (/^https?:\/\//.test(v) ? undefined : 'An http(s) URL') }));
      if (!url) return undefined;
    }
    const secret = await secretFor(provider);
    if (!secret) return undefined;
    const signed = schemeFor(provider).sign({ secret, body, url });
    return post(signed.url ?? url, { ...delivery.headers, ...signed.headers }, body);
  });

  /** A delivery, or the delivery an Agents-view event was stored from. */
  const deliveryOf = async (raw: unknown): Promise<DeliverySummary | undefined> => {
    const node = raw as AgentNode | DeliverySummary | undefined;
    if (node && 'kind' in node) {
      if (node.kind !== 'event' || !session.client) return undefined;
      const found = (await session.client.deliveries(10_000)).find((d) => d.event === node.event.id && d.status < 400);
      if (!found) throw new Error(`the request that stored ${node.event.id} is no longer in the deliveries log`);
      return found;
    }
    return node;
  };

  const replay = async (raw: unknown, resign: boolean): Promise<SendResult | undefined> => {
    const summary = await deliveryOf(raw);
    const client = session.client;
    if (!summary?.id || !client) return undefined;
    const full = await client.delivery(summary.id);
    const body = Buffer.from(full.requestBodyBase64, 'base64');
    const headers = Object.fromEntries(Object.entries(full.requestHeaders).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
    const url = `${client.baseUrl}${full.path}`;
    if (!resign) return post(url, headers, body);
    const provider = full.provider as ProviderName | null;
    if (!provider || !(PROVIDERS as readonly string[]).includes(provider)) throw new Error('this delivery has no known provider to re-sign it for');
    const secret = await secretFor(provider);
    if (!secret) return undefined;
    const scheme = schemeFor(provider);
    const signed = scheme.sign({ secret, body, url });
    // Drop the old signature headers (any spelling), then add fresh ones.
    const fresh = Object.keys(signed.headers).map((h) => h.toLowerCase());
    const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => !fresh.includes(name.toLowerCase()) && !scheme.shape.signatureHeaders.includes(name.toLowerCase())));
    return post(signed.url ?? url, { ...kept, ...signed.headers }, body);
  };
  registerCommand(store, logger, 'hookbench.delivery.replay', (d: unknown) => replay(d, false));
  registerCommand(store, logger, 'hookbench.delivery.replayResigned', (d: unknown) => replay(d, true));

  registerCommand(store, logger, 'hookbench.delivery.copyCurl', async (raw: unknown) => {
    const summary = await deliveryOf(raw);
    const client = session.client;
    if (!summary?.id || !client) return undefined;
    const full = await client.delivery(summary.id);
    const curl = curlCommand(`${client.baseUrl}${full.path}`, full.method, full.requestHeaders, Buffer.from(full.requestBodyBase64, 'base64'));
    await vscode.env.clipboard.writeText(curl);
    void vscode.window.showInformationMessage('Copied the request as a cURL command.');
    return curl;
  });
}
