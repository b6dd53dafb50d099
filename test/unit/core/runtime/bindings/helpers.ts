// Shared by the bindings' tests: sql.js, temp folders, a manual clock and timers.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { BindingStore } from '../../../../../src/core/runtime/bindings/bindingStore';
import type { Timers } from '../../../../../src/core/runtime/bindings/queues';
import { loadSqlJs } from '../../../../../src/core/runtime/sqljs';

let cached: Promise<SqlJsStatic> | undefined;
export const sqlJs = () => (cached ??= loadSqlJs());

export const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), `hb-${prefix}-`));

export async function storeAt(dir: string, schema: readonly string[]): Promise<BindingStore> {
  return new BindingStore({ sql: await sqlJs(), dir, schema });
}

/** A clock and timers that move only when the test says so. */
export class ManualTime implements Timers {
  now = Date.UTC(2026, 0, 1);
  private next = 1;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  readonly clock = () => this.now;

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  get timerCount(): number {
    return this.pending.size;
  }

  /** Moves the clock, firing every timer due on the way, in order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.now = Math.max(this.now, due[1].at);
      due[1].fn();
    }
    this.now = end;
  }
}

/**
 * Waits until `check` holds, letting promises and disk I/O (fdatasync on a busy machine) run in
 * between; bounded so a broken broker fails the test instead of hanging it.
 */
export async function settle(check: () => boolean | Promise<boolean>, rounds = 3000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the condition never held');
}
