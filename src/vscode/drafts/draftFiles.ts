/**
 * Payload drafts as real editor documents (scheme `hookbench-draft`): a tab titled by provider,
 * event and entity ("github push · acme-widgets.json"), JSON highlighting and validation, Send in
 * the editor title, and no "save changes?" prompt, because the draft saves itself as it is edited.
 * A draft's text and record are kept in the workspace's private storage, so a window reload or a
 * restart of VS Code gives its tab back with the last edit (docs/explorer.md, "Payload drafts");
 * closing the tab discards it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatDraftRecord, parseDraftRecord, type DraftMeta } from '../../core/contract/editors';
import { StoredFiles } from '../storedFiles';

export type { DraftMeta } from '../../core/contract/editors';

export const DRAFT_SCHEME = 'hookbench-draft';

const RECORD = '.json';

export class DraftFiles extends StoredFiles {
  private readonly metas = new Map<string, DraftMeta>();
  private next = 1;

  /** The drafts kept in `folder` are read back: their tabs may be restored. */
  constructor(folder: string) {
    super(folder, 2, 'drafts');
    for (const name of fs.existsSync(folder) ? fs.readdirSync(folder) : []) {
      if (!name.endsWith(RECORD)) continue;
      const record = parseDraftRecord(fs.readFileSync(path.join(folder, name), 'utf8'));
      if (!record) continue;
      this.metas.set(record.path, record.meta);
      this.next = Math.max(this.next, Number(record.path.split('/')[1]) + 1 || 0);
    }
  }

  /** A new draft's URI, its content stored. */
  create(meta: DraftMeta, content: Uint8Array): vscode.Uri {
    const json = (meta.headers['content-type'] ?? 'application/json').includes('json');
    const title = `${meta.provider} ${meta.event.replace(/\//g, '∕')}${meta.entity ? ` · ${meta.entity.replace(/\//g, '∕')}` : ''}`;
    const uri = vscode.Uri.from({ scheme: DRAFT_SCHEME, path: `/${this.next++}/${title}.${json ? 'json' : 'txt'}` });
    this.metas.set(uri.path, meta);
    super.writeFile(uri, content);
    this.saveRecord(uri);
    return uri;
  }

  meta(uri: vscode.Uri): DraftMeta | undefined {
    return this.metas.get(uri.path);
  }

  /** Changes where the draft is sent (undefined: the local receiver), for now and after a reload. */
  setUrl(uri: vscode.Uri, url: string | undefined): void {
    const meta = this.metas.get(uri.path);
    if (!meta) return;
    meta.url = url;
    this.saveRecord(uri);
  }

  private saveRecord(uri: vscode.Uri): void {
    fs.writeFileSync(this.storedPath(uri, RECORD), formatDraftRecord({ path: uri.path, meta: this.metas.get(uri.path)! }));
  }

  /** Only a draft that exists is written: a discarded one is not brought back by a late save. */
  override writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.metas.has(uri.path)) throw vscode.FileSystemError.FileNotFound(uri);
    super.writeFile(uri, content);
  }

  override delete(uri: vscode.Uri): void {
    this.metas.delete(uri.path);
    super.delete(uri);
    fs.rmSync(this.storedPath(uri, RECORD), { force: true });
  }
}
