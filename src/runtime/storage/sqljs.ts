import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
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

function defaultScriptPath(): string {
  try {
    return require.resolve('sql.js/dist/sql-wasm.js');
  } catch {
    return path.join(__dirname, 'sql-wasm.js');
  }
}

type InitSqlJs = typeof initSqlJs;

/** The part of the WebAssembly global used here (the project's type libraries do not declare it). */
interface Wasm {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<object>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

/**
 * A loader of separate sql.js instances: each call gives a module with a wasm heap of its own,
 * which the garbage collector frees once nothing refers to the module and its databases (sql.js
 * caches its one module per evaluation of its script, and a wasm heap never shrinks: a heap that
 * can be dropped is the only way its memory comes back). The script is compiled once and evaluated
 * afresh per instance; the wasm is compiled once and only instantiated per instance.
 */
export function separateSqlJsLoader(wasmPath = defaultWasmPath(), scriptPath = defaultScriptPath()): () => Promise<SqlJsStatic> {
  const script = new vm.Script(Module.wrap(gentlerFileGrowth(fs.readFileSync(scriptPath, 'utf8')).source), { filename: scriptPath });
  const compiled = wasmApi.compile(fs.readFileSync(wasmPath));
  compiled.catch(() => undefined);
  return async () => {
    const wasm = await compiled;
    const module = { exports: {} as unknown };
    const run = script.runInThisContext() as (
      exports: unknown,
      require: NodeJS.Require,
      module: { exports: unknown },
      filename: string,
      dirname: string,
    ) => void;
    run.call(module.exports, module.exports, Module.createRequire(scriptPath), module, scriptPath, path.dirname(scriptPath));
    const init = module.exports as InitSqlJs;
    return init({
      instantiateWasm: (imports: object, receive: (instance: object) => void) => {
        void wasmApi.instantiate(wasm, imports).then(receive);
        return {};
      },
    } as never);
  };
}

/**
 * Emscripten's in-memory file system, which holds each sql.js database file, grows a file's buffer
 * to twice its capacity (by 1/8 past 1 MiB) when a write passes its end, and SQLite grows its file a
 * page at a time: a 300 KiB database sits in a 512 KiB buffer, and a database reopened from its
 * snapshot (an exact-size buffer) doubles at its first new page. This rewrites that step in
 * sql.js's script to grow by an eighth, at least 16 KiB: at most 1/8 (or 16 KiB) of slack, for
 * about 8 copies of the file over its growth instead of 2 (the file grows rarely: pages freed by
 * deletes are reused). The step is found by its shape, not by the minifier's names; when a sql.js
 * release no longer has it, the script is left as it is (`patched: false`, which a test checks
 * against the installed release).
 */
export function gentlerFileGrowth(source: string): { source: string; patched: boolean } {
  const doubling = /([A-Za-z_$][\w$]*)\*\(\1<1048576\?2:1\.125\)>>>0/g;
  const found = source.match(doubling);
  if (found?.length !== 1) return { source, patched: false };
  return { source: source.replace(doubling, (_whole, capacity: string) => `${capacity}+Math.max(16384,${capacity}>>>3)`), patched: true };
}
