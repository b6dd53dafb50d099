/**
 * Read-only documents for deliveries and events (scheme `hookbench`, a read-only file system:
 * readOnlyFiles.ts), read from the receiver when they open, so a tab restored after a reload
 * reads them again. A delivery opens as
 * one document (deliveryDocument.ts); an Agents-view event opens as the delivery that stored it,
 * or as its payload when the deliveries log no longer has that request.
 */
import * as vscode from 'vscode';
import type { DisposableStore } from '../core/events';
import type { DeliverySummary } from '../core/contract/deliveries';
import type { AdminClient } from './client/adminClient';
import { deliveryText, prettyBody, sourceLabel } from './deliveryDocument';
import { documentTarget, SCHEME, type DocumentTarget } from './documentUris';
import { ReadOnlyFiles } from './readOnlyFiles';
import type { ExplorerSession } from './views/explorerSession';

/** The language a delivery or event document is shown in (media/http: a small grammar of our own). */
export const HTTP_LANGUAGE = 'hookbench-http';

/** How long a document opened before the receiver runs (a tab restored at start) waits for it. */
const WAIT_FOR_RECEIVER_MS = 20_000;

/** The delivery that stored event `id` (accepted, not a duplicate), newest first; undefined when the log no longer has it. */
export async function deliveryOfEvent(client: AdminClient, id: string): Promise<DeliverySummary | undefined> {
  return (await client.deliveries(10_000)).find((d) => d.event === id && d.status < 400 && !d.duplicate);
}

export class HookbenchDocuments {
  constructor(private readonly session: ExplorerSession) {}

  private async client(): Promise<AdminClient | undefined> {
    if (this.session.client) return this.session.client;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), WAIT_FOR_RECEIVER_MS);
      const listener = this.session.onDidChange(() => this.session.client && done(this.session.client));
      const done = (client: AdminClient | undefined) => {
        clearTimeout(timer);
        listener.dispose();
        resolve(client);
      };
    });
  }

  /** The text of the document `uri` names (a delivery, or an event). */
  async read(uri: vscode.Uri): Promise<string> {
    const target = documentTarget(uri);
    if (!target) return '';
    const client = await this.client();
    if (!client) return '# The Hookbench receiver is not running: this tab is read again once it runs (Hookbench: Restart Receiver).';
    const id = target.kind === 'delivery' ? target.id : (await deliveryOfEvent(client, target.id))?.id;
    if (id !== undefined) {
      const d = await client.delivery(id).catch(() => undefined);
      return d ? deliveryText(d, sourceLabel(d.source, new Map())) : `# Delivery ${id} is no longer in the deliveries log.`;
    }
    const event = target as Extract<DocumentTarget, { kind: 'event' }>;
    const payload = await client.payload(event.namespace, event.name, event.id);
    if (payload === undefined) return `# Event ${event.id} of ${event.name} is no longer stored (retention).`;
    return `# Event ${event.id} of ${event.name}: the request that stored it is no longer in the deliveries log; its payload:\n\n${prettyBody(payload)}\n`;
  }
}

/**
 * The documents' provider. Their language comes with their name: a title ends in " · 12:03:04.http",
 * which `package.json` gives to the hookbench-http language, so a tab `vscode.open` opens, or one
 * restored after a reload, is highlighted from the start.
 */
export function registerDocuments(store: DisposableStore, session: ExplorerSession): void {
  const documents = new HookbenchDocuments(session);
  const files = new ReadOnlyFiles((uri) => (documentTarget(uri) ? documents.read(uri) : undefined));
  store.add(vscode.workspace.registerFileSystemProvider(SCHEME, files, { isCaseSensitive: true, isReadonly: true }));
  // A tab restored before the receiver ran said so: read again once it runs.
  store.add(
    session.onLive((message) => {
      if (message.type === 'hello') files.refresh(vscode.workspace.textDocuments.map((document) => document.uri).filter((uri) => uri.scheme === SCHEME));
    }),
  );
}
