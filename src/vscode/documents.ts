/**
 * Read-only virtual documents for event payloads and deliveries (scheme `hookbench`), so they open
 * as JSON or HTTP in an editor without touching the disk.
 */
import * as vscode from 'vscode';
import type { ExplorerSession } from './views/explorerSession';

export const SCHEME = 'hookbench';

export class HookbenchDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly session: ExplorerSession) {}

  static eventUri(namespace: string, name: string, id: string): vscode.Uri {
    return vscode.Uri.from({ scheme: SCHEME, path: `/event/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(id)}.json` });
  }

  /** The tab reads "401 POST webhooks∕stripe∕cus_1.http"; the id in the folder part finds the delivery. */
  static deliveryUri(id: string, status: number, method: string, path: string): vscode.Uri {
    let readable = path;
    try {
      readable = decodeURIComponent(path);
    } catch {
      // Shown as written.
    }
    // A division slash reads as "/" in the tab without making folders of the title.
    const title = `${status} ${method} ${readable.replace(/^\//, '').replace(/\//g, '∕').replace(/[?#%\\]/g, '-') || 'root'}`;
    return vscode.Uri.from({ scheme: SCHEME, path: `/delivery/${encodeURIComponent(id)}/${title}.http` });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const client = this.session.client;
    if (!client) return '// The Hookbench receiver is not running.';
    const parts = uri.path.split('/').slice(1).map(decodeURIComponent);
    if (parts[0] === 'event') {
      const [, namespace, name, file] = parts;
      const payload = await client.payload(namespace!, name!, file!.replace(/\.json$/, ''));
      if (payload === undefined) return '// This event is no longer stored (retention).';
      try {
        return JSON.stringify(JSON.parse(payload), null, 2);
      } catch {
        return payload;
      }
    }
    if (parts[0] === 'delivery') {
      const d = await client.delivery(parts[1]!);
      const headers = (h: Record<string, string>) => Object.entries(h).map(([k, v]) => `${k}: ${v}`).join('\n');
      return `${d.method} ${d.path}\n${headers(d.requestHeaders)}\n\n${d.requestBody}\n\n### ${d.status} · ${d.durationMs.toFixed(1)} ms · ${d.verification ?? ''}\n${headers(d.responseHeaders)}\n\n${d.responseBody}\n`;
    }
    return '';
  }
}
