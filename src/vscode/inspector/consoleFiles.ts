/**
 * SQL consoles as editor documents kept in memory (scheme `hookbench-sql`), one per instance: a tab
 * titled by instance and agent ("acme-widgets · webhook-agent.sql"), SQL highlighting, Run in the
 * editor title, and no "save changes?" prompt, because the console saves itself to memory as it is
 * edited. The instance is part of the URI, so a console names its instance by itself.
 */
import * as vscode from 'vscode';
import type { InstanceRef } from '../../core/contract/instances';

export const SQL_SCHEME = 'hookbench-sql';

interface ConsoleFile {
  content: Uint8Array;
  mtime: number;
}

/** The console's key: one console (and one history) per instance. */
export function consoleKey(ref: InstanceRef): string {
  return `${ref.namespace}/${ref.name}`;
}

export class ConsoleFiles implements vscode.FileSystemProvider {
  private readonly files = new Map<string, ConsoleFile>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  /** The console of `ref`; `agent` only titles the tab. */
  static uri(ref: InstanceRef, agent: string): vscode.Uri {
    const title = `${ref.name} · ${agent}`.replace(/[/\\]/g, '∕');
    return vscode.Uri.from({ scheme: SQL_SCHEME, path: `/${encodeURIComponent(ref.namespace)}/${encodeURIComponent(ref.name)}/${title}.sql` });
  }

  /** The instance a console URI names, or undefined for any other URI. */
  static instanceOf(uri: vscode.Uri): InstanceRef | undefined {
    if (uri.scheme !== SQL_SCHEME) return undefined;
    const [namespace, name] = uri.path.split('/').slice(1);
    if (!namespace || !name) return undefined;
    try {
      return { namespace: decodeURIComponent(namespace), name: decodeURIComponent(name) };
    } catch {
      return undefined;
    }
  }

  /** Makes sure the console exists, with `text` when it is new. */
  ensure(uri: vscode.Uri, text: string): void {
    if (!this.files.has(uri.path)) this.files.set(uri.path, { content: new TextEncoder().encode(text), mtime: Date.now() });
  }

  private file(uri: vscode.Uri): ConsoleFile {
    const found = this.files.get(uri.path);
    if (!found) throw vscode.FileSystemError.FileNotFound(uri);
    return found;
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    if (uri.path.split('/').filter(Boolean).length < 3) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    const file = this.file(uri);
    return { type: vscode.FileType.File, ctime: file.mtime, mtime: file.mtime, size: file.content.byteLength };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return this.file(uri).content;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this.files.set(uri.path, { content, mtime: Date.now() });
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('consoles have no folders');
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('a console is named after its instance');
  }
}
