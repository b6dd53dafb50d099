/**
 * SQL consoles as editor documents (scheme `hookbench-sql`), one per target — an
 * instance, or a D1 database of the worker: a tab titled by instance and agent ("acme-widgets ·
 * webhook-agent.sql", "DB · D1.sql"), SQL highlighting, Run in the editor title, and no "save
 * changes?" prompt, because the console saves itself as it is edited. Its text is kept in the
 * workspace's private storage: the tab VS Code restores after a reload finds it. The target is part
 * of the URI, so a console names what it queries by itself.
 */
import * as vscode from 'vscode';
import type { InstanceRef } from '../../core/contract/instances';
import { StoredFiles } from '../storedFiles';

export const SQL_SCHEME = 'hookbench-sql';

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

export class ConsoleFiles extends StoredFiles {
  /** The consoles kept in `folder`: a console's text is there when its tab is restored or it opens again. */
  constructor(folder: string) {
    super(folder, 3, 'consoles');
  }

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
    if (!this.exists(uri)) this.writeFile(uri, new TextEncoder().encode(text));
  }
}
