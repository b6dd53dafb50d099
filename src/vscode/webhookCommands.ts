/**
 * Send Test Webhook (provider → event → entity → a draft to edit and Send) and, on recorded
 * deliveries, replay as received (a duplicate on purpose, to test idempotency), replay as a new
 * delivery (new delivery id, re-signed now), and copy as cURL. The first step also offers the
 * workspace's saved fixtures. Secrets come from SecretStorage
 * and only ever go into request headers.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { curlCommand, HOP_BY_HOP } from '../core/curl';
import type { DisposableStore } from '../core/events';
import type { Logger } from '../core/log';
import { asNewDelivery, buildDelivery, findTemplate, templatesFor, type Template } from '../core/payloads';
import { entityOf, PROVIDERS, schemeFor, type ProviderName } from '../core/signing';
import type { DeliverySummary } from '../core/contract/deliveries';
import { registerCommand } from './commands';
import { deliveryOfEvent } from './documents';
import { localTarget } from './drafts/draftCommands';
import { workspaceFixtures } from './fixtures/fixtureCommands';
import { fixtureFolder } from './fixtures/saveFixtures';
import type { DraftFiles } from './drafts/draftFiles';
import type { Secrets } from './secrets';
import type { Sender, SendResult } from './sender';
import type { AgentNode } from './views/agentsTree';
import type { ExplorerSession } from './views/explorerSession';

export type { SendResult } from './sender';

export interface SendArgs {
  readonly provider?: ProviderName;
  readonly event?: string;
  readonly entity?: string;
  /** Where to POST; the local receiver's /webhooks/<provider>/<entity> by default. */
  readonly url?: string;
  /** The body to send instead of the template's: sent at once, no draft. */
  readonly payload?: string;
  /** A fixture file to send (re-signed) instead of a template. */
  readonly fixture?: string;
  /** With `fixture`: a fresh delivery id instead of the recorded one; asked when absent. */
  readonly newId?: boolean;
}

/** A fixture file picked in Send Test Webhook's first step. */
interface PickedFixture {
  readonly fixture: string;
}

/**
 * The provider pick: each says whether its secret is set, and one without carries a key button
 * that sets it on the spot (the pick stays open and updates). The workspace's fixtures follow,
 * sent as they are (re-signed) when picked.
 */
async function pickProvider(secrets: Secrets, privateStorage: string): Promise<ProviderName | PickedFixture | undefined> {
  const setButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('key'), tooltip: "Set this provider's webhook secret now" };
  type Item = vscode.QuickPickItem & { provider?: ProviderName; env?: string; fixture?: string };
  const folder = fixtureFolder(privateStorage);
  const fixtures: Item[] = workspaceFixtures(privateStorage).map((file) => ({
    label: `$(file) ${path.basename(file, '.json')}`,
    description: folder ? path.relative(folder.root, path.dirname(file)) : '',
    fixture: file,
  }));
  const items = async (): Promise<Item[]> => [
    ...(await Promise.all(
      PROVIDERS.map(async (provider) => {
        const env = schemeFor(provider).shape.secretEnv;
        const set = Boolean(await secrets.get(env));
        return { label: provider, description: set ? `$(pass) ${env} set` : `$(warning) no ${env}`, buttons: set ? [] : [setButton], provider, env };
      }),
    )),
    ...(fixtures.length > 0 ? [{ label: 'Fixtures', kind: vscode.QuickPickItemKind.Separator }, ...fixtures] : []),
  ];
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = 'Send Test Webhook (1/3)';
  pick.placeholder = fixtures.length > 0 ? 'Provider, or a saved fixture' : 'Provider';
  pick.matchOnDescription = true;
  pick.items = await items();
  return new Promise((resolve) => {
    let answered = false;
    const finish = (value: ProviderName | PickedFixture | undefined) => {
      if (answered) return;
      answered = true;
      resolve(value);
      pick.dispose();
    };
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      finish(item?.fixture ? { fixture: item.fixture } : item?.provider);
    });
    // The secret's input box takes the pick's place for a moment: that hide is not a cancel.
    let settingSecret = false;
    pick.onDidHide(() => settingSecret || finish(undefined));
    pick.onDidTriggerItemButton(async ({ item }) => {
      settingSecret = true;
      const value = await vscode.window.showInputBox({
        title: `Set ${item.env}`,
        prompt: 'Kept in VS Code secret storage; never in settings or logs.',
        password: true,
        ignoreFocusOut: true,
      });
      if (value) await vscode.commands.executeCommand('hookbench.secret.set', item.env, value);
      pick.items = await items();
      settingSecret = false;
      pick.show();
    });
    pick.show();
  });
}

/** The entity prompt, showing the template's own (what an empty answer keeps). */
function askEntity(template: Template): Thenable<string | undefined> {
  const example = buildDelivery(template);
  const own = entityOf(template.provider, example.headers, example.body);
  return vscode.window.showInputBox({
    title: 'Send Test Webhook (3/3)',
    prompt: `Entity: where ${template.provider} keeps it (repository, customer, account, team, shop). ${own ? `Empty keeps the template's: ${own}` : 'Empty keeps the template as it is.'}`,
    placeHolder: own,
  });
}

/** `privateStorage`: VS Code's storage for this workspace, where an untrusted one's fixtures are. */
export function registerWebhookCommands(
  store: DisposableStore,
  logger: Logger,
  sender: Sender,
  secrets: Secrets,
  session: ExplorerSession,
  drafts: DraftFiles,
  privateStorage: string,
): void {
  registerCommand(store, logger, 'hookbench.webhook.send', async (raw?: unknown): Promise<SendResult | vscode.Uri | undefined> => {
    const args = (raw ?? {}) as SendArgs;
    if (args.fixture !== undefined)
      return vscode.commands.executeCommand<SendResult | undefined>('hookbench.fixtures.send', { file: args.fixture, newId: args.newId });
    const picked = args.provider ?? (await pickProvider(secrets, privateStorage));
    if (!picked) return undefined;
    if (typeof picked === 'object') return vscode.commands.executeCommand<SendResult | undefined>('hookbench.fixtures.send', { file: picked.fixture });
    const provider = picked;
    const event =
      args.event ??
      (
        await vscode.window.showQuickPick(
          templatesFor(provider).map((t) => ({ label: t.event, description: t.description })),
          { title: 'Send Test Webhook (2/3)', placeHolder: 'Event', matchOnDescription: true },
        )
      )?.label;
    const template = event ? findTemplate(provider, event) : undefined;
    if (!template || !event) return undefined;
    const entity = args.entity ?? (await askEntity(template));
    if (entity === undefined) return undefined;
    const delivery = buildDelivery(template, { entity: entity || undefined });
    const meta = { provider, event, entity, headers: delivery.headers, url: args.url };
    if (args.payload === undefined) {
      // The draft: edit it, then Send from the editor title, the CodeLens or Ctrl+Alt+Enter.
      const uri = drafts.create(meta, delivery.body);
      await vscode.window.showTextDocument(uri, { preview: false });
      return uri;
    }
    const secret = await sender.secretFor(provider);
    if (!secret) return undefined;
    const url = args.url ?? localTarget(await sender.localBase(), meta);
    const body = Buffer.from(args.payload);
    const signed = schemeFor(provider).sign({ secret, body, url });
    return sender.post(signed.url ?? url, { ...delivery.headers, ...signed.headers }, body, `${provider} ${event}`);
  });

  /** A delivery, or the delivery an Agents-view event was stored from. */
  const deliveryOf = async (raw: unknown): Promise<DeliverySummary | undefined> => {
    const node = raw as AgentNode | DeliverySummary | undefined;
    if (node && 'kind' in node) {
      if (node.kind !== 'event' || !session.client) return undefined;
      const found = await deliveryOfEvent(session.client, node.event.id);
      if (!found) throw new Error(`the request that stored ${node.event.id} is no longer in the deliveries log`);
      return found;
    }
    return node;
  };

  const replay = async (raw: unknown, asNew: boolean): Promise<SendResult | undefined> => {
    const summary = await deliveryOf(raw);
    const client = session.client;
    if (!summary?.id || !client) return undefined;
    const full = await client.delivery(summary.id);
    const body = Buffer.from(full.requestBodyBase64, 'base64');
    const headers = Object.fromEntries(Object.entries(full.requestHeaders).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
    const url = `${client.baseUrl}${full.path}`;
    if (!asNew) return sender.post(url, headers, body, 'replay as received', 'replay');
    const provider = full.provider as ProviderName | null;
    if (!provider || !(PROVIDERS as readonly string[]).includes(provider)) throw new Error('this delivery has no known provider to re-sign it for');
    const secret = await sender.secretFor(provider);
    if (!secret) return undefined;
    const scheme = schemeFor(provider);
    const fresh = asNewDelivery(provider, headers, body);
    const signed = scheme.sign({ secret, body: fresh.body, url, id: fresh.id });
    // Drop the old signature headers (any spelling), then add fresh ones.
    const renewed = Object.keys(signed.headers).map((h) => h.toLowerCase());
    const kept = Object.fromEntries(
      Object.entries(fresh.headers).filter(([name]) => !renewed.includes(name.toLowerCase()) && !scheme.shape.signatureHeaders.includes(name.toLowerCase())),
    );
    return sender.post(signed.url ?? url, { ...kept, ...signed.headers }, fresh.body, 'replay as a new delivery', 'replay');
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
