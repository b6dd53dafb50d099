// Shared by the bindings' tests: sql.js, temp folders, the manual clock and timers.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { BindingStore } from '../../../../src/runtime/bindings/bindingStore';
import { loadSqlJs } from '../../../../src/runtime/storage/sqljs';
import { ManualTimers } from '../../helpers/manualTimers';

let cached: Promise<SqlJsStatic> | undefined;
export const sqlJs = () => (cached ??= loadSqlJs());

export const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), `hb-${prefix}-`));

export async function storeAt(dir: string, schema: readonly string[]): Promise<BindingStore> {
  return new BindingStore({ sql: await sqlJs(), dir, schema });
}

/** The runtime's manual clock, started at 2026-01-01T00:00:00Z (a Thursday) for the bindings' dated checks. */
export const manualTimers = () => new ManualTimers(Date.UTC(2026, 0, 1));

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
