/**
 * dist/extension.js, VS Code's entry for the extension: runs the extension's bundle beside it
 * (dist/extensionMain.js, built from src/extension.ts) from V8's code cache (src/codeCache.ts).
 * Compiling the bundle was a large part of its code loading in VS Code's activation time
 * (docs/performance.md, "Extension activation"). `require('vscode')` in the bundle still reaches
 * VS Code's API for this extension: VS Code tells extensions apart by the requiring file's path,
 * which is in the extension's folder.
 */
import * as path from 'node:path';
import { runFromCodeCache } from './codeCache';
import type * as Main from './extension';

const main = runFromCodeCache({ main: path.join(__dirname, 'extensionMain.js'), name: 'extension', saveAfterMs: 5_000 }).exports as typeof Main;

export function activate(context: Parameters<typeof Main.activate>[0]): ReturnType<typeof Main.activate> {
  return main.activate(context);
}

export function deactivate(): void {
  main.deactivate();
}
