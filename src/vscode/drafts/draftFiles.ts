/**
 * Payload drafts as real editor documents, kept in memory (scheme `hookbench-draft`): a tab titled
 * by provider, event and entity ("github push · acme-widgets.json"), JSON highlighting and
 * validation, Send in the editor title, and no "save changes?" prompt, because the draft saves
 * itself to memory as it is edited. A draft lives until VS Code closes.
 */
import * as vscode from 'vscode';
import type { ProviderName } from '../../core/signing';

export const DRAFT_SCHEME = 'hookbench-draft';

/** What a draft is for: the send reads it, the CodeLens shows it. */
export interface DraftMeta {
  readonly provider: ProviderName;
  readonly event: string;
  /** Empty: the receiver takes the entity from the payload. */
  readonly entity: string;
  /** The template's own headers (event type, content type, delivery id); never a signature. */
  readonly headers: Record<string, string>;
  /** Where to send; undefined means the local receiver. */
  url?: string;
}

interface Draft {
  readonly meta: DraftMeta;
  content: Uint8Array;
  mtime: number;
}

export class DraftFiles implements vscode.FileSystemProvider {
  private readonly drafts = new Map<string, Draft>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  private next = 1;

  /** A new draft's URI, its content stored. */
  create(meta: DraftMeta, content: Uint8Array): vscode.Uri {
    const json = (meta.headers['content-type'] ?? 'application/json').includes('json');
    const title = `${meta.provider} ${meta.event.replace(/\//g, '∕')}${meta.entity ? ` · ${meta.entity.replace(/\//g, '∕')}` : ''}`;
    const uri = vscode.Uri.from({ scheme: DRAFT_SCHEME, path: `/${this.next++}/${title}.${json ? 'json' : 'txt'}` });
    this.drafts.set(uri.path, { meta, content, mtime: Date.now() });
    return uri;
  }

  meta(uri: vscode.Uri): DraftMeta | undefined {
    return this.drafts.get(uri.path)?.meta;
  }

  private draft(uri: vscode.Uri): Draft {
    const found = this.drafts.get(uri.path);
    if (!found) throw vscode.FileSystemError.FileNotFound(uri);
    return found;
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const parts = uri.path.split('/').filter(Boolean);
    if (parts.length < 2) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    const draft = this.draft(uri);
    return { type: vscode.FileType.File, ctime: draft.mtime, mtime: draft.mtime, size: draft.content.byteLength };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return this.draft(uri).content;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    const draft = this.draft(uri);
    draft.content = content;
    draft.mtime = Date.now();
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.drafts.delete(uri.path);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('drafts have no folders');
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('drafts cannot be renamed');
  }
}
