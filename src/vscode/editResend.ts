/**
 * Edit & Resend (docs/explorer.md, "Edit & Resend"): a delivery, or the delivery an event was
 * stored from, opens as a payload draft (drafts/draftFiles.ts) with its body as pretty JSON and the
 * headers a new send keeps; Send re-signs it with the provider's secret as a new delivery, as any
 * draft is sent.
 */
import * as vscode from 'vscode';
import type { DeliveryDetails } from '../core/contract/admin';
import type { DeliverySummary } from '../core/contract/deliveries';
import { webhookPath } from '../core/contract/webhookRoutes';
import type { DisposableStore } from '../core/events';
import { sendableHeaders } from '../core/fixtures/fromDelivery';
import type { Logger } from '../core/log';
import { isProviderName } from '../core/signing';
import type { AdminClient } from './client/adminClient';
import { registerCommand } from './commands';
import { prettyBody } from './deliveryDocument';
import { deliveryOfEvent } from './documents';
import { documentTarget } from './documentUris';
import type { DraftFiles, DraftMeta } from './drafts/draftFiles';
import type { AgentNode } from './views/agentsTree';
import type { ExplorerSession } from './views/explorerSession';

/**
 * The id of the delivery `raw` names: a Deliveries row, an Agents-view event, a delivery or event
 * document's URI (the editor title's button passes it), or, with none, the active editor's.
 */
export async function deliveryIdOf(client: AdminClient, raw: unknown): Promise<string | undefined> {
  const given = raw ?? vscode.window.activeTextEditor?.document.uri;
  if (given instanceof vscode.Uri) {
    const target = documentTarget(given);
    if (!target) return undefined;
    return target.kind === 'delivery' ? target.id : requireStored(await deliveryOfEvent(client, target.id), target.id);
  }
  const node = given as AgentNode | DeliverySummary | undefined;
  if (node && 'kind' in node) return node.kind === 'event' ? requireStored(await deliveryOfEvent(client, node.event.id), node.event.id) : undefined;
  return node?.id;
}

function requireStored(found: DeliverySummary | undefined, event: string): string {
  if (!found) throw new Error(`the request that stored ${event} is no longer in the deliveries log`);
  return found.id;
}

/** The draft a delivery opens as: its provider, event type, entity, the headers a send keeps; its path when it is not the provider's route. */
export function draftOf(d: DeliveryDetails, baseUrl: string): { meta: DraftMeta; body: string } {
  const provider = d.provider;
  if (!provider || !isProviderName(provider)) throw new Error('this delivery has no known provider to sign it for');
  if (d.requestTruncated) throw new Error('the deliveries log kept only the start of this body, so it cannot be edited and sent again');
  const entity = d.entity ?? '';
  const route = d.path.split('?')[0] === webhookPath(provider, entity || undefined);
  const meta: DraftMeta = {
    provider,
    event: d.eventType ?? 'event',
    entity,
    headers: sendableHeaders(provider, d.requestHeaders),
    url: route ? undefined : `${baseUrl}${d.path}`,
  };
  return { meta, body: prettyBody(d.requestBody) };
}

export function registerEditResend(store: DisposableStore, logger: Logger, session: ExplorerSession, drafts: DraftFiles): void {
  registerCommand(store, logger, 'hookbench.delivery.editResend', async (raw?: unknown): Promise<vscode.Uri | undefined> => {
    const client = session.client;
    if (!client) throw new Error('the receiver is not running: start it to edit and resend a delivery');
    const id = await deliveryIdOf(client, raw);
    if (!id) throw new Error('open a delivery or an event (the Deliveries or Agents view) to edit and resend it');
    const { meta, body } = draftOf(await client.delivery(id), client.baseUrl);
    const uri = drafts.create(meta, Buffer.from(body, 'utf8'));
    await vscode.window.showTextDocument(uri, { preview: false });
    return uri;
  });
}
