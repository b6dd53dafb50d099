/**
 * SQL consoles as editor documents kept in memory (scheme `hookbench-sql`), one per target — an
 * instance, or a D1 database of the worker: a tab titled by instance and agent ("acme-widgets ·
 * webhook-agent.sql", "DB · D1.sql"), SQL highlighting, Run in the editor title, and no "save
 * changes?" prompt, because the console saves itself to memory as it is edited. The target is part
 * of the URI, so a console names what it queries by itself.
 */
import * as vscode from 'vscode';
import type { InstanceRef } from '../../core/contract/instances';

export const SQL_SCHEME = 'hookbench-sql';

interface ConsoleFile {
  content: Uint8Array;
  mtime: number;
}

/** A D1 database of the worker, by its binding. */
export interface D1Ref {
  readonly d1: string;
}

/** What a console queries: a Durable Object instance, or a D1 database. */
export type ConsoleRef = InstanceRef | D1Ref;

export const isD1 = (ref: ConsoleRef): ref is D1Ref => typeof (ref as Partial<D1Ref>).d1 === 'string';

/**
 * The first URI segment of a D1 console. A namespace is a Durable Object binding, a JavaScript
 * identifier, so it can never be `~d1`.
 */
const D1_SEGMENT = '~d1';

/** The console's key: one console (and one history) per instance or database. */
export function consoleKey(ref: ConsoleRef): string {
  return isD1(ref) ? `${D1_SEGMENT}/${ref.d1}` : `${ref.namespace}/${ref.name}`;
}

/** How results and prompts name the target: "acme-widgets (WEBHOOK_AGENT)", "DB (D1 database)". */
export function consoleLabel(ref: ConsoleRef): string {
  return isD1(ref) ? `${ref.d1} (D1 database)` : `${ref.name} (${ref.namespace})`;
}

/** The short name: the instance's name, or the D1 binding. */
export function consoleName(ref: ConsoleRef): string {
  return isD1(ref) ? ref.d1 : ref.name;
}

export class ConsoleFiles implements vscode.FileSystemProvider {
  private readonly files = new Map<string, ConsoleFile>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  /** The console of `ref`; `agent` only titles an instance's tab. */
  static uri(ref: ConsoleRef, agent?: string): vscode.Uri {
    const [first, second, title] = isD1(ref) ? [D1_SEGMENT, ref.d1, `${ref.d1} · D1`] : [ref.namespace, ref.name, `${ref.name} · ${agent ?? ref.namespace}`];
    return vscode.Uri.from({ scheme: SQL_SCHEME, path: `/${encodeURIComponent(first)}/${encodeURIComponent(second)}/${title.replace(/[/\\]/g, '∕')}.sql` });
  }

  /** The instance or database a console URI names, or undefined for any other URI. */
  static targetOf(uri: vscode.Uri): ConsoleRef | undefined {
    if (uri.scheme !== SQL_SCHEME) return undefined;
    const [first, second] = uri.path.split('/').slice(1);
    if (!first || !second) return undefined;
    try {
      const name = decodeURIComponent(second);
      return first === D1_SEGMENT ? { d1: name } : { namespace: decodeURIComponent(first), name };
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
