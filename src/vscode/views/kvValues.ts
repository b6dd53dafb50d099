/**
 * A KV value opened from the Bindings view, as a read-only document (scheme `hookbench-kv`, titled
 * by its key): the value as text, or as base64 when it is not UTF-8, at most the first 64 KiB.
 * The key travels by a number in the URI, never in its path, so any key (`a/b`, `../x`) is shown.
 */
import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import type { Logger } from '../../core/log';
import { registerCommand } from '../commands';
import type { AdminClient } from '../client/adminClient';
import { OPEN_VALUE_COMMAND } from './bindingNodes';

export const KV_SCHEME = 'hookbench-kv';

interface Opened {
  readonly binding: string;
  readonly key: string;
}

export class KvValues implements vscode.TextDocumentContentProvider {
  private readonly opened = new Map<string, Opened>();
  private next = 0;

  constructor(private readonly client: () => AdminClient | undefined) {}

  uri(binding: string, key: string): vscode.Uri {
    const id = String(++this.next);
    this.opened.set(id, { binding, key });
    return vscode.Uri.from({ scheme: KV_SCHEME, path: `/${binding}/${key.replace(/[/\\]/g, '∕') || '(empty)'}`, query: id });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const opened = this.opened.get(uri.query);
    const client = this.client();
    if (!opened) return 'This value was opened in an earlier session: open it again from the Bindings view.';
    if (!client) return 'The Hookbench receiver is not running: start it to read this value.';
    const value = await client.kvValue(opened.binding, opened.key);
    const note = value.truncated ? `\n\n[the first ${value.value.length} of ${value.size} bytes${value.encoding === 'base64' ? ', base64' : ''}]` : '';
    return `${value.value}${note}`;
  }
}

export function registerKvValues(store: DisposableStore, logger: Logger, client: () => AdminClient | undefined): KvValues {
  const values = new KvValues(client);
  store.add(vscode.workspace.registerTextDocumentContentProvider(KV_SCHEME, values));
  registerCommand(store, logger, OPEN_VALUE_COMMAND, async (given: unknown) => {
    const { binding, key } = (given ?? {}) as Partial<Opened>;
    if (typeof binding !== 'string' || typeof key !== 'string') throw new Error('open a KV value from a key in the Bindings view');
    const document = await vscode.workspace.openTextDocument(values.uri(binding, key));
    await vscode.window.showTextDocument(document, { preview: true });
    return document.uri;
  });
  return values;
}
