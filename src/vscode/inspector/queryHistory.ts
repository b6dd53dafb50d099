/**
 * The SQL console's history: the statements run on each instance, newest first, kept in the
 * workspace's state (per workspace, never in settings), at most 50 per instance, a statement run
 * again moving to the top instead of appearing twice.
 */
import type * as vscode from 'vscode';

const KEY = 'hookbench.sql.history';
export const MAX_HISTORY = 50;

export interface HistoryEntry {
  readonly sql: string;
  /** When it last ran (ISO 8601). */
  readonly at: string;
  /** Rows answered, or the error's first line. */
  readonly outcome: string;
}

export class QueryHistory {
  constructor(private readonly state: vscode.Memento) {}

  private all(): Record<string, HistoryEntry[]> {
    return this.state.get<Record<string, HistoryEntry[]>>(KEY, {});
  }

  list(key: string): HistoryEntry[] {
    return this.all()[key] ?? [];
  }

  async add(key: string, entry: HistoryEntry): Promise<void> {
    const all = this.all();
    const kept = (all[key] ?? []).filter((e) => e.sql.trim() !== entry.sql.trim());
    await this.state.update(KEY, { ...all, [key]: [entry, ...kept].slice(0, MAX_HISTORY) });
  }
}
