/**
 * The SQL console's read-write gate. A console is read-only until its user switches it, and the
 * switch only happens when they confirmed it. A read-only console sends every statement to the
 * admin API's read-only query (a copy of the database, in a worker thread, which refuses writes);
 * a read-write one sends statements that may write to `…/execute`, which the instance runs itself
 * (journal, output gate), and still sends plain reads to the read-only query, which a time limit
 * can stop.
 */
import { statementKind } from '../sqlStatementKind';

export type ConsoleMode = 'readOnly' | 'readWrite';

/** Which admin route runs a statement. */
export type ConsoleRoute = 'query' | 'execute';

export function routeFor(mode: ConsoleMode, sql: string): ConsoleRoute {
  if (mode === 'readOnly') return 'query';
  return statementKind(sql) === 'read' ? 'query' : 'execute';
}

/** The modes of the open consoles, by console key; every console starts read-only. */
export class ConsoleModes {
  private readonly modes = new Map<string, ConsoleMode>();

  mode(key: string): ConsoleMode {
    return this.modes.get(key) ?? 'readOnly';
  }

  /** Switches to read-write only with the user's confirmation; answers the mode now in force. */
  allowWrites(key: string, confirmed: boolean): ConsoleMode {
    if (confirmed) this.modes.set(key, 'readWrite');
    return this.mode(key);
  }

  readOnly(key: string): void {
    this.modes.delete(key);
  }

  route(key: string, sql: string): ConsoleRoute {
    return routeFor(this.mode(key), sql);
  }
}

/** The server's read-only refusal, with what the user can do about it. */
export function explainRefusal(message: string, mode: ConsoleMode): string {
  if (mode === 'readOnly' && message.startsWith('read-only:'))
    return `${message}. This console is read-only: switch it to read-write (the lock in the editor title) to change data through the running instance.`;
  return message;
}
