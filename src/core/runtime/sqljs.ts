import * as path from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';

/**
 * Loads sql.js once per process. The wasm file sits beside the bundle (dist/sql-wasm.wasm) or, when
 * running from source, in node_modules.
 */
export function loadSqlJs(wasmPath?: string): Promise<SqlJsStatic> {
  const file = wasmPath ?? defaultWasmPath();
  return initSqlJs({ locateFile: () => file });
}

function defaultWasmPath(): string {
  try {
    return require.resolve('sql.js/dist/sql-wasm.wasm');
  } catch {
    return path.join(__dirname, 'sql-wasm.wasm');
  }
}
